#pragma once
// The SOM's device code, written once for every backend: the (distance, index) reducer whose ties resolve to the
// lowest index, the pending update of the previous input, the fused step (update, then distance) and the flush.
// Functors rather than lambdas, so that the same code compiles for the host backends and under nvcc.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/rng/counter_rng.hpp"

namespace kbrain::galbraith {

// A candidate best-matching unit: its squared distance and its neuron index.
template <class Real>
struct SomBest {
  Real value;
  std::int32_t index;
};

// Lexicographic minimum of (value, index): of equal distances the lowest index wins, whatever order the backend
// joins partial results in (Kokkos' MinLoc keeps whichever it meets first, which differs between backends and
// thread counts). Follows Kokkos 3.4's reducer concept (join, volatile join, init, reference, view).
template <class Real, class Space>
struct SomBestReducer {
  using reducer = SomBestReducer<Real, Space>;
  using value_type = SomBest<Real>;
  using result_view_type = Kokkos::View<value_type, Space>;

 private:
  result_view_type value_;
  bool references_scalar_v_;

 public:
  KOKKOS_INLINE_FUNCTION SomBestReducer(value_type& v) : value_(&v), references_scalar_v_(true) {}
  KOKKOS_INLINE_FUNCTION SomBestReducer(const result_view_type& v) : value_(v), references_scalar_v_(false) {}

  KOKKOS_INLINE_FUNCTION static bool better(Real v, std::int32_t i, Real best_v, std::int32_t best_i) {
    return v < best_v || (v == best_v && i < best_i);
  }
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const {
    if (better(src.value, src.index, dest.value, dest.index)) dest = src;
  }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest, const volatile value_type& src) const {
    if (better(src.value, src.index, dest.value, dest.index)) {
      dest.value = src.value;
      dest.index = src.index;
    }
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
    v.value = Kokkos::reduction_identity<Real>::min();  // the largest finite value
    v.index = 2147483647;
  }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *value_.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return value_; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return references_scalar_v_; }
};

// The BMU digest: FNV-1a over the sequence of BMU indices (order-sensitive), 53 bits reported so it fits a double.
inline constexpr std::uint64_t kSomDigestStart = 0xcbf29ce484222325ull;
KOKKOS_INLINE_FUNCTION std::uint64_t som_digest_fold(std::uint64_t h, std::int32_t bmu) {
  return (h ^ static_cast<std::uint64_t>(static_cast<std::uint32_t>(bmu))) * 0x100000001b3ull;
}

// Channel c of neuron n's initial weight: floor(256 u) / 255, u = counter_uniform(seed, n, c) (the study's
// (rand() % 256) / 255, keyed so every backend draws the same byte).
template <class Real>
KOKKOS_INLINE_FUNCTION Real som_initial_weight(std::uint64_t seed, std::int64_t n, int c) {
  const auto k = static_cast<int>(counter_uniform(seed, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(c)) * 256.0);
  return Real(k) / Real(255);
}

// Which neurons an input's update reaches, for one pass: the window |u|, |v| <= half, or the disc u^2 + v^2 < r2.
struct SomRule {
  bool disc = false;
  int half = 2;
  double r2 = 256;
  KOKKOS_INLINE_FUNCTION bool inside(std::int64_t u, std::int64_t v) const {
    if (disc) return double(u * u + v * v) < r2;
    return u <= half && u >= -half && v <= half && v >= -half;
  }
};

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
    const Real pr = Real(image(3 * pixel)) / Real(255), pg = Real(image(3 * pixel + 1)) / Real(255),
               pb = Real(image(3 * pixel + 2)) / Real(255);
    r += alpha * (pr - r);
    g += alpha * (pg - g);
    b += alpha * (pb - b);
    return true;
  }
};

template <class Real, class Mem>
struct SomWeights {
  Kokkos::View<Real*, Mem> r, g, b;
};

// Fills the weights from the counter RNG.
template <class Real, class Mem>
struct SomInit {
  SomWeights<Real, Mem> w;
  std::uint64_t seed;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t n) const {
    w.r(n) = som_initial_weight<Real>(seed, n, 0);
    w.g(n) = som_initial_weight<Real>(seed, n, 1);
    w.b(n) = som_initial_weight<Real>(seed, n, 2);
  }
};

// One training step in one launch: each neuron first applies the previous input's update to itself (the previous
// reduce's BMU is final once this kernel starts), then offers its squared distance to the current pixel to the
// (distance, index) minimum. Neuron 0 folds the applied BMU into the digest (one writer, read by no other thread).
template <class Real, class Mem>
struct SomStep {
  // Floating-point operations per neuron for its distance to the input (3 scalings of the pixel, 3 differences,
  // 3 squares, 2 sums), counted from operator() below; the neighbourhood's updates (at most a few dozen neurons per
  // step) are left out. Keep it with the code.
  static constexpr int kFlopsPerNeuron = 11;
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
    const auto& image = pending.image;
    const Real dr = r - Real(image(3 * pixel)) / Real(255), dg = g - Real(image(3 * pixel + 1)) / Real(255),
               db = b - Real(image(3 * pixel + 2)) / Real(255);
    const Real d = dr * dr + dg * dg + db * db;
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

// What samplers read (models/common/device_sampler.hpp): a weight channel with the pending update applied, so a
// sample taken between steps shows the weights after every input so far.
template <class Real, class Mem>
struct SomReader {
  SomWeights<Real, Mem> w;
  SomPending<Real, Mem> pending;
  KOKKOS_INLINE_FUNCTION Real operator()(int var, std::int64_t i) const {
    const auto n = static_cast<std::int32_t>(i);
    Real r = w.r(n), g = w.g(n), b = w.b(n);
    if (pending.pixel >= 0) pending.apply(n, r, g, b);
    return var == 0 ? r : var == 1 ? g : b;
  }
};

}  // namespace kbrain::galbraith
