#pragma once
// The SOM's one-launch-per-input strategy (som_simulation.hpp picks it on GPUs): a parallel_reduce per input whose
// neurons first apply the previous input's pending update to themselves and then offer their distance to the
// current input to the (distance, index) minimum; a flush applies the last pending update. The same arithmetic as
// the chunks of som_kernels.hpp (the distance of som_distance, the update w += alpha (p - w)).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/galbraith_som/som_kernels.hpp"

namespace kbrain::galbraith {

// The update an input still owes the weights: its BMU (a result View of the reduce that found it), its pixel and
// the rule of its pass. pixel < 0: nothing pending.
template <class Real, class Mem>
struct SomPending {
  Kokkos::View<const SomBest<Real>, Mem> best;
  Kokkos::View<const std::uint8_t*, Mem> image;  // 3 bytes a pixel, BMP file order
  std::int64_t pixel = -1;
  std::int32_t width = 1;
  Real alpha = Real(0.05);
  SomRule rule;

  // w += alpha (p - w) when neuron n lies inside the rule around the BMU; true when it did.
  KOKKOS_INLINE_FUNCTION bool apply(std::int32_t n, Real& r, Real& g, Real& b) const {
    const std::int32_t bmu = best().index;
    const std::int64_t u = std::int64_t(n % width) - std::int64_t(bmu % width);
    const std::int64_t v = std::int64_t(n / width) - std::int64_t(bmu / width);
    if (!rule.inside(u, v)) return false;
    som_update(r, g, b, SomPixel<Real, Mem>(image, pixel), alpha);
    return true;
  }
};

// One training step in one launch: each neuron first applies the previous input's update to itself (the previous
// reduce's BMU is final once this kernel starts), then offers its squared distance to the current pixel to the
// (distance, index) minimum. Neuron 0 folds the applied BMU into the digest (one writer, read by no other thread).
template <class Real, class Mem>
struct SomStep {
  SomWeights<Real, Mem> w;
  SomPending<Real, Mem> pending;
  Kokkos::View<std::uint64_t, Mem> digest;
  std::int64_t pixel;  // the current input

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, SomBest<Real>& best) const {
    const auto n = static_cast<std::int32_t>(i);
    Real r = w.r(n), g = w.g(n), b = w.b(n);
    if (pending.pixel >= 0) {
      if (pending.apply(n, r, g, b)) {
        w.r(n) = r;
        w.g(n) = g;
        w.b(n) = b;
      }
      if (n == 0) digest() = som_digest_fold(digest(), pending.best().index);
    }
    const Real d = som_distance(r, g, b, SomPixel<Real, Mem>(pending.image, pixel));
    if (SomBestReducer<Real, Mem>::better(d, n, best.value, best.index)) {
      best.value = d;
      best.index = n;
    }
  }
};

// Applies the pending update alone (before weights are read: checkpoints, the end of the run).
template <class Real, class Mem>
struct SomFlush {
  SomWeights<Real, Mem> w;
  SomPending<Real, Mem> pending;
  Kokkos::View<std::uint64_t, Mem> digest;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const auto n = static_cast<std::int32_t>(i);
    Real r = w.r(n), g = w.g(n), b = w.b(n);
    if (pending.apply(n, r, g, b)) {
      w.r(n) = r;
      w.g(n) = g;
      w.b(n) = b;
    }
    if (n == 0) digest() = som_digest_fold(digest(), pending.best().index);
  }
};

}  // namespace kbrain::galbraith
