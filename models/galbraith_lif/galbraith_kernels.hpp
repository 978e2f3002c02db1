#pragma once
// The kernels of one step (../shared/docs/specs/galbraith.md §1.3): the study's five update processes (stimulus,
// dendrites, somas, axons, synapses) for the agent mapping, and kbrain's fused event-driven step. One body for GPU
// threads and host cores; every sum runs in a fixed order, so a backend's result does not depend on its threads.
// Each functor holds only the views it reads: Kokkos passes a functor under 512 bytes as a kernel argument, a larger
// one through constant memory, which makes the host wait for the previous kernel before every launch.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "models/galbraith_lif/galbraith_state.hpp"

namespace kbrain::galbraith {

template <class Real>
struct SomaParams {
  Real dt = 0, tau_rc = 1, r = 1, v_th = 1;
  std::int32_t refractory_steps = 0;

  static SomaParams from(const GalbraithPlan& plan) {
    return {Real(plan.dt_ms), Real(plan.params.tau_rc), Real(plan.params.r_leak), Real(plan.params.v_th),
            static_cast<std::int32_t>(plan.refractory_steps)};
  }
};

// The soma at step n (Listing 4.4): RK4 in the listing's form while not refractory, then the threshold. Strict
// refractoriness in integer form: integrated only when n > ref_end (initially 0, so never at step 0); a spike at step
// n sets ref_end = n + round(tau_ref/dt). Returns whether the neuron fired.
template <class Real>
KOKKOS_INLINE_FUNCTION bool soma_step(Real& V, std::int32_t& ref_end, const Real J, const std::int32_t n,
                                      const SomaParams<Real>& p) {
  if (n <= ref_end) return false;
  const Real jr = J * p.r;
  const Real k1 = p.dt * (jr - V) / p.tau_rc;
  const Real k2 = p.dt * (jr - (V + Real(0.5) * k1)) / p.tau_rc;
  const Real k3 = p.dt * (jr - (V + Real(0.5) * k2)) / p.tau_rc;
  const Real k4 = p.dt * (jr - (V + k3)) / p.tau_rc;
  V += (k1 + Real(2) * k2 + Real(2) * k3 + k4) / Real(6);
  if (V > p.v_th) {
    V = 0;
    ref_end = n + p.refractory_steps;
    return true;
  }
  return false;
}

// The arrays of the event-driven step.
template <class Real, class Mem>
struct EventViews {
  using Reals = Kokkos::View<Real*, Mem>;
  using Ints = Kokkos::View<std::int32_t*, Mem>;
  using Flags = Kokkos::View<std::uint8_t*, Mem>;
  Reals V, stimulus, weight, filter;
  Ints ref_end, count, src;
  Kokkos::View<std::int64_t*, Mem> offsets;
  Kokkos::View<Real**, Mem> buffer;
  Flags spikes_even, spikes_odd;
  std::int64_t taps = 0;

  static EventViews of(const GalbraithState<Real, Mem>& st) {
    return {st.V, st.stimulus, st.weight, st.filter, st.ref_end, st.count, st.src, st.offsets, st.neuron_buffer,
            st.spikes_even, st.spikes_odd, st.taps};
  }
  KOKKOS_INLINE_FUNCTION const Flags& flags(std::int64_t step) const { return step % 2 == 0 ? spikes_even : spikes_odd; }

  // The current the PSC buffer of neuron i holds for tap `tap`, which it gives up (a silent tap is not rewritten).
  KOKKOS_INLINE_FUNCTION Real take_current(const std::int64_t i, const std::int64_t tap) const {
    const Real J = buffer(i, tap);
    if (J != Real(0)) buffer(i, tap) = 0;
    return J;
  }

  // The soma of neuron i at step n with synaptic current J; sets the neuron's spike flag of step n.
  KOKKOS_INLINE_FUNCTION void soma(const std::int64_t i, const Real J, const std::int32_t n, const SomaParams<Real>& p) const {
    Real v = V(i);
    std::int32_t end = ref_end(i);
    const bool fired = soma_step(v, end, J + stimulus(i), n, p);
    V(i) = v;
    ref_end(i) = end;
    flags(n)(i) = fired ? 1 : 0;
    if (fired) count(i) += 1;
  }
};

// ---- event-driven: one kernel per step, one neuron per index ----
// Neuron i at step n: the spikes of its sources at step n-1 enter its PSC buffer (weight-summed first: every synapse
// into i shares i's filter), the buffer's tap of step n-1 leaves as this step's synaptic current (the study's
// synapse stage of step n-1 and dendrite stage of step n), then the soma.
template <class Real, class Mem>
struct EventStep {
  EventViews<Real, Mem> st;
  SomaParams<Real> p;
  std::int32_t n = 0;

  // buffer(i, tap + k mod L) += arriving h[k] for every k. One thread does all L taps, so the loads of a chunk are
  // issued before its stores: the compiler cannot tell the filter from the buffer, and a load-add-store per tap would
  // wait a memory latency each (L of them in a row on a GPU). Same arithmetic as one tap at a time, which host cores
  // (caches close by, the plain loop vectorised) keep.
  KOKKOS_INLINE_FUNCTION void add_filter(const std::int64_t i, const std::int64_t tap, const Real arriving) const {
#if !defined(__CUDA_ARCH__)
    for (std::int64_t k = 0; k < st.taps; ++k) {
      const std::int64_t slot = tap + k < st.taps ? tap + k : tap + k - st.taps;
      st.buffer(i, slot) += arriving * st.filter(k);
    }
#else
    constexpr int kChunk = 16;
    const std::int64_t taps = st.taps;
    for (std::int64_t k0 = 0; k0 < taps; k0 += kChunk) {
      Real sum[kChunk];
      std::int64_t slot[kChunk];
      for (int j = 0; j < kChunk; ++j) {
        const std::int64_t k = k0 + j;
        slot[j] = tap + k < taps ? tap + k : tap + k - taps;
        if (k < taps) sum[j] = st.buffer(i, slot[j]) + arriving * st.filter(k);
      }
      for (int j = 0; j < kChunk; ++j)
        if (k0 + j < taps) st.buffer(i, slot[j]) = sum[j];
    }
#endif
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    Real J = 0;
    if (n > 0) {
      const auto& previous = st.flags(n - 1);
      Real arriving = 0;
      for (std::int64_t k = st.offsets(i); k < st.offsets(i + 1); ++k)
        if (previous(st.src(k))) arriving += st.weight(k);
      const std::int64_t tap = (n - 1) % st.taps;
      if (arriving != Real(0)) add_filter(i, tap, arriving);
      J = st.take_current(i, tap);
    }
    st.soma(i, J, n, p);
  }
};

// The same step with a team of threads per neuron, for networks whose neurons have many inputs (the fully connected
// and dense random sweeps): the team sums the arriving weights and updates the PSC taps in parallel, one thread runs
// the soma. The per-neuron sum order differs from EventStep's, so float values may differ in the last bits (sums of
// equal weights, as in every generated network, are exact either way).
template <class Real, class Mem, class Exec>
struct EventStepTeam {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  EventViews<Real, Mem> st;
  SomaParams<Real> p;
  std::int32_t n = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t i = team.league_rank();
    const std::int64_t tap = n > 0 ? (n - 1) % st.taps : 0;
    if (n > 0) {
      const auto& previous = st.flags(n - 1);
      const auto src = st.src;
      const auto weight = st.weight;
      Real arriving = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, st.offsets(i), st.offsets(i + 1)),
          [&](const std::int64_t k, Real& sum) {
            if (previous(src(k))) sum += weight(k);
          },
          arriving);
      if (arriving != Real(0)) {
        const std::int64_t taps = st.taps;
        const auto buffer = st.buffer;
        const auto filter = st.filter;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, taps), [&](const std::int64_t k) {
          const std::int64_t slot = tap + k < taps ? tap + k : tap + k - taps;
          buffer(i, slot) += arriving * filter(k);
        });
      }
      team.team_barrier();
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { st.soma(i, n > 0 ? st.take_current(i, tap) : Real(0), n, p); });
  }
};

// ---- agent mapping: the study's five kernels ----
template <class Real, class Mem>
struct StimulusStage {  // applyStimulus: Jstim[i] = stimulus[i]
  Kokkos::View<Real*, Mem> j_stim, stimulus;
  static StimulusStage of(const GalbraithState<Real, Mem>& st) { return {st.j_stim, st.stimulus}; }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { j_stim(i) = stimulus(i); }
};

template <class Real, class Mem>
struct DendriteStage {  // updateDendrites: Jspike[i] = sum over synapses into i of Jin_s w_s
  Kokkos::View<Real*, Mem> j_spike, synapse_current, weight;
  Kokkos::View<std::int64_t*, Mem> offsets;
  static DendriteStage of(const GalbraithState<Real, Mem>& st) {
    return {st.j_spike, st.synapse_current, st.weight, st.offsets};
  }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    Real sum = 0;
    for (std::int64_t k = offsets(i); k < offsets(i + 1); ++k) sum += synapse_current(k) * weight(k);
    j_spike(i) = sum;
  }
};

template <class Real, class Mem>
struct SomaStage {  // updateSomas: a spike sets the axon buffer
  Kokkos::View<Real*, Mem> V, j_spike, j_stim;
  Kokkos::View<std::int32_t*, Mem> ref_end, count;
  Kokkos::View<std::uint8_t*, Mem> axon;
  SomaParams<Real> p;
  std::int32_t n = 0;
  static SomaStage of(const GalbraithState<Real, Mem>& st, const SomaParams<Real>& p, std::int32_t n) {
    return {st.V, st.j_spike, st.j_stim, st.ref_end, st.count, st.axon, p, n};
  }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    Real v = V(i);
    std::int32_t end = ref_end(i);
    if (soma_step(v, end, j_spike(i) + j_stim(i), n, p)) {
      axon(i) = 1;
      count(i) += 1;
    }
    V(i) = v;
    ref_end(i) = end;
  }
};

template <class Real, class Mem>
struct AxonStage {  // updateAxons: spike[i] = buffer[i]; buffer[i] = 0 (no transmission delay)
  Kokkos::View<std::uint8_t*, Mem> spike, axon;
  static AxonStage of(const GalbraithState<Real, Mem>& st) { return {st.spike, st.axon}; }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    spike(i) = axon(i);
    axon(i) = 0;
  }
};

// updateSynapses (Listing 4.6): a team of threads per synapse, one filter tap per thread. On a spike of the source
// every tap adds h[k] at (n + k) mod L; then the synapse's current is the tap of step n, which is cleared.
template <class Real, class Mem, class Exec>
struct SynapseStage {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  Kokkos::View<Real*, Mem> synapse_buffer, synapse_current, filter;
  Kokkos::View<std::uint8_t*, Mem> spike;
  Kokkos::View<std::int32_t*, Mem> src;
  std::int64_t taps = 0, stride = 0;
  std::int32_t n = 0;
  static SynapseStage of(const GalbraithState<Real, Mem>& st, std::int32_t n) {
    return {st.synapse_buffer, st.synapse_current, st.filter, st.spike, st.src, st.taps, st.stride, n};
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t s = team.league_rank();
    const std::int64_t tap = n % taps;
    Real* buffer = &synapse_buffer(s * stride);
    if (spike(src(s))) {
      const std::int64_t length = taps;
      const auto h = filter;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, length), [&](const std::int64_t k) {
        const std::int64_t slot = tap + k < length ? tap + k : tap + k - length;
        buffer[slot] += h(k);
      });
      team.team_barrier();
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      synapse_current(s) = buffer[tap];
      buffer[tap] = 0;
    });
  }
};

}  // namespace kbrain::galbraith
