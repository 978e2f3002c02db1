#pragma once
// What every neuron kernel reads besides its own state: synaptic arrivals due this step (fixed-point ring slot,
// cleared as it is read), the external current (constant + thalamic noise), the step index (from the backend's step
// clock: the launch is the same every step) and where its spikes go.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "spiking/counter_draws.hpp"
#include "spiking/spike_exchange.hpp"
#include "spiking/step_clock.hpp"
#include "spiking/synapse_network.hpp"

namespace kbrain::point {

// Host backends run a neuron step over chunks of kHostChunk neurons per index, each one `omp simd` loop:
// neurons [begin, begin + len) of chunk `chunk` among n.
inline constexpr int kHostChunk = 256;
struct HostChunkRange {
  int begin, len;
};
inline HostChunkRange host_chunk_range(const int chunk, const int n) {
  const int begin = chunk * kHostChunk;
  return {begin, n - begin < kHostChunk ? n - begin : kHostChunk};
}

template <class Real, class Mem>
struct StepInputs {
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring;  // (slot * receptors + receptor, neuron)
  int slots = 1, receptors = 2;                              // ring slots, receptors per slot
  double inv_scale[spiking::kMaxReceptors] = {1.0, 1.0};     // fixed point -> model units
  Kokkos::View<const Real*, Mem> i_ext, noise_sd;
  spiking::SpikeSink<Mem> spikes;
  spiking::StepClock<Mem> clock;                             // read by the step's first kernel
  std::uint64_t noise_seed = 0;
  bool noisy = true;                                         // false: no neuron has noise (host loops skip the draw)

  // Index of the step being computed (Brian2: t = step * dt).
  KOKKOS_INLINE_FUNCTION int step() const { return clock.first_kernel_step(); }

  KOKKOS_INLINE_FUNCTION void emit(int i, bool spike) const { spikes.emit(i, spike, step()); }

  // Sum of the weights that arrive at neuron i for receptor r this step; clears the slot for reuse.
  KOKKOS_INLINE_FUNCTION Real take(int r, int i) const {
    const int row = (step() % slots) * receptors + r;
    const long long q = ring(row, i);
    if (q == 0) return Real(0);
    ring(row, i) = 0;
    return static_cast<Real>(static_cast<double>(q) * inv_scale[r]);
  }

  // Ring row of receptor r's arrivals due at `step` (host loops walk it directly).
  KOKKOS_INLINE_FUNCTION long long* slot_row(int step, int r) const {
    return &ring((step % slots) * receptors + r, 0);
  }

  // Host chunk loops: the external current of neurons [b, b + len) into out; the noise draws (scalar code) only
  // where some neuron has noise, else one vector copy.
  void chunk_currents(const int b, const int len, Real* out) const {
    if (noisy) {
      for (int k = 0; k < len; ++k) out[k] = current(b + k);
      return;
    }
#pragma omp simd
    for (int k = 0; k < len; ++k) out[k] = i_ext(b + k);
  }

  // Host chunk loops: a ring slot's arrivals in model units, the slot cleared; no branch, so that it vectorises (a
  // zero slot gives +0, as take()).
  KOKKOS_FORCEINLINE_FUNCTION static Real arrival(long long* slot, const double scale) {
    const Real value = static_cast<Real>(static_cast<double>(*slot) * scale);
    *slot = 0;
    return value;
  }

  // External current: constant part + sd * N(0,1) drawn for (seed, neuron, step) (Box-Muller, in double).
  KOKKOS_INLINE_FUNCTION Real current(int i) const {
    Real I = i_ext(i);
    const Real sd = noise_sd(i);
    if (sd != Real(0)) {
      const std::uint64_t key = spiking::stream_key(noise_seed, spiking::Purpose::Noise);
      const std::uint64_t draw = 2 * static_cast<std::uint64_t>(step());
      const double u1 = 1.0 - counter_uniform(key, static_cast<std::uint64_t>(i), draw);
      const double u2 = counter_uniform(key, static_cast<std::uint64_t>(i), draw + 1);
      const double z = kx::sqrt(-2.0 * kx::log(u1)) * kx::cos(6.283185307179586 * u2);
      I += sd * static_cast<Real>(z);
    }
    return I;
  }
};

}  // namespace kbrain::point
