#pragma once
// What every neuron kernel reads besides its own state: synaptic arrivals due this step (fixed-point ring slot,
// cleared as it is read), the external current (constant + thalamic noise) and where it writes its spike flag.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "spiking/counter_draws.hpp"
#include "spiking/synapse_network.hpp"

namespace kbrain::point {

template <class Real, class Mem>
struct StepInputs {
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring;  // (slot * receptors + receptor, neuron)
  int slot_row = 0;                                          // this step's slot * receptors
  double inv_scale[spiking::kMaxReceptors] = {1.0, 1.0};     // fixed point -> model units
  Kokkos::View<const Real*, Mem> i_ext, noise_sd;
  Kokkos::View<int*, Mem> spiked;                            // 1 if the neuron spiked this step
  std::uint64_t noise_seed = 0;
  int step = 0;                                              // index of the step being computed (Brian2: t = step*dt)

  // Sum of the weights that arrive at neuron i for receptor r this step; clears the slot for reuse.
  KOKKOS_INLINE_FUNCTION Real take(int r, int i) const {
    const long long q = ring(slot_row + r, i);
    if (q == 0) return Real(0);
    ring(slot_row + r, i) = 0;
    return static_cast<Real>(static_cast<double>(q) * inv_scale[r]);
  }

  // External current: constant part + sd * N(0,1) drawn for (seed, neuron, step) (Box-Muller, in double).
  KOKKOS_INLINE_FUNCTION Real current(int i) const {
    Real I = i_ext(i);
    const Real sd = noise_sd(i);
    if (sd != Real(0)) {
      const std::uint64_t key = spiking::stream_key(noise_seed, spiking::Purpose::Noise);
      const double u1 = 1.0 - counter_uniform(key, static_cast<std::uint64_t>(i), 2 * static_cast<std::uint64_t>(step));
      const double u2 = counter_uniform(key, static_cast<std::uint64_t>(i), 2 * static_cast<std::uint64_t>(step) + 1);
      const double z = kx::sqrt(-2.0 * kx::log(u1)) * kx::cos(6.283185307179586 * u2);
      I += sd * static_cast<Real>(z);
    }
    return I;
  }
};

}  // namespace kbrain::point
