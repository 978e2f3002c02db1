#pragma once
// State of a population of point neurons: structure of arrays, one View per variable (those the model does not use
// stay empty). Updated in place: each neuron reads and writes only its own entries.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "models/point/point_parameters.hpp"
#include "models/point/point_vars.hpp"

namespace kbrain::point {

constexpr int kNeverSpiked = -(1 << 30);

template <class Real, class Mem>
struct PointState {
  using RealView = Kokkos::View<Real*, Mem>;
  RealView v, ge, gi, xe, xi, u, m, h, n, p;
  Kokkos::View<int*, Mem> last_spike;  // step index of the last spike (Brian2's lastspike)
  RealView a, b, c, d;                 // Izhikevich per neuron
  RealView i_ext;                      // constant input current per neuron (pA; Izhikevich: input units)
  RealView noise_sd;                   // thalamic noise: sd of a fresh N(0,1) current each step (0: none)

  // The integrated variables this neuron model allocates (host only: extents).
  int live_variables() const {
    int count = 0;
    for (const RealView* view : {&v, &ge, &gi, &xe, &xi, &u, &m, &h, &n, &p}) count += view->extent(0) > 0;
    return count;
  }

  KOKKOS_INLINE_FUNCTION Real get(int var, int i) const {
    switch (var) {
      case V: return v(i);
      case GE: return ge(i);
      case GI: return gi(i);
      case XE: return xe(i);
      case XI: return xi(i);
      case U: return u(i);
      case M: return m(i);
      case H: return h(i);
      case N: return n(i);
      default: return p(i);
    }
  }

  RealView view(int var) const {
    const RealView all[NUM_POINT_VARS] = {v, ge, gi, xe, xi, u, m, h, n, p};
    return all[var];
  }
  RealView& view_ref(int var) {
    RealView* all[NUM_POINT_VARS] = {&v, &ge, &gi, &xe, &xi, &u, &m, &h, &n, &p};
    return *all[var];
  }

  // Allocates the views the model uses for `count` neurons (zero-filled; last_spike = kNeverSpiked).
  void allocate(const PointParameters& params, std::int64_t count) {
    for (int var = 0; var < NUM_POINT_VARS; ++var)
      if (model_has_var(params, var)) view_ref(var) = RealView(std::string("point_") + kPointVarNames[var], count);
    last_spike = Kokkos::View<int*, Mem>("point_last_spike", count);
    Kokkos::deep_copy(last_spike, kNeverSpiked);
    if (params.model == NeuronModel::Izhikevich) {
      a = RealView("izh_a", count);
      b = RealView("izh_b", count);
      c = RealView("izh_c", count);
      d = RealView("izh_d", count);
    }
    i_ext = RealView("point_i_ext", count);
    noise_sd = RealView("point_noise_sd", count);
  }
};

// Host values for one variable (size = neurons) copied into the device view.
template <class Real, class Mem>
void upload(Kokkos::View<Real*, Mem> view, const std::vector<double>& values) {
  auto h = Kokkos::create_mirror_view(view);
  for (std::size_t i = 0; i < values.size() && i < h.extent(0); ++i) h(i) = static_cast<Real>(values[i]);
  Kokkos::deep_copy(view, h);
}

template <class Real, class Mem>
std::vector<double> download(Kokkos::View<Real*, Mem> view) {
  auto h = Kokkos::create_mirror_view(view);
  Kokkos::deep_copy(h, view);
  std::vector<double> out(h.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(h(i));
  return out;
}

}  // namespace kbrain::point
