#pragma once
// The kernels of one step (../shared/docs/specs/galbraith.md §1.3): the study's five update processes (stimulus,
// dendrites, somas, axons, synapses) for the agent mapping, and kbrain's fused event-driven step. One body for GPU
// threads and host cores; every sum runs in a fixed order, so a backend's result does not depend on its threads.
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

// ---- event-driven: one kernel per step, one neuron per index ----
// Neuron i at step n: the spikes of its sources at step n-1 enter its PSC buffer (weight-summed first: every synapse
// into i shares i's filter), the buffer's tap of step n-1 leaves as this step's synaptic current (the study's
// synapse stage of step n-1 and dendrite stage of step n), then the soma.
template <class Real, class Mem>
struct EventStep {
  GalbraithState<Real, Mem> st;
  SomaParams<Real> p;
  std::int32_t n = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    Real J = 0;
    if (n > 0) {
      const auto& previous = st.flags_of_step(n - 1);
      Real arriving = 0;
      for (std::int64_t k = st.offsets(i); k < st.offsets(i + 1); ++k)
        if (previous(st.src(k))) arriving += st.weight(k);
      const std::int64_t tap = (n - 1) % st.taps;
      if (arriving != Real(0))
        for (std::int64_t k = 0; k < st.taps; ++k) {
          const std::int64_t slot = tap + k < st.taps ? tap + k : tap + k - st.taps;
          st.neuron_buffer(i, slot) += arriving * st.filter(k);
        }
      J = st.neuron_buffer(i, tap);
      if (J != Real(0)) st.neuron_buffer(i, tap) = 0;
    }
    J += st.stimulus(i);
    Real V = st.V(i);
    std::int32_t ref_end = st.ref_end(i);
    const bool fired = soma_step(V, ref_end, J, n, p);
    st.V(i) = V;
    st.ref_end(i) = ref_end;
    st.flags_of_step(n)(i) = fired ? 1 : 0;
    if (fired) st.count(i) += 1;
  }
};

// The same step with a team of threads per neuron, for networks whose neurons have many inputs (the fully connected
// and dense random sweeps): the team sums the arriving weights and updates the PSC taps in parallel, one thread runs
// the soma. The per-neuron sum order differs from EventStep's, so float values may differ in the last bits (sums of
// equal weights, as in every generated network, are exact either way).
template <class Real, class Mem, class Exec>
struct EventStepTeam {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  GalbraithState<Real, Mem> st;
  SomaParams<Real> p;
  std::int32_t n = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t i = team.league_rank();
    const std::int64_t tap = n > 0 ? (n - 1) % st.taps : 0;
    if (n > 0) {
      const auto& previous = st.flags_of_step(n - 1);
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
        const auto buffer = st.neuron_buffer;
        const auto filter = st.filter;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, taps), [&](const std::int64_t k) {
          const std::int64_t slot = tap + k < taps ? tap + k : tap + k - taps;
          buffer(i, slot) += arriving * filter(k);
        });
      }
      team.team_barrier();
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      Real J = 0;
      if (n > 0) {
        J = st.neuron_buffer(i, tap);
        if (J != Real(0)) st.neuron_buffer(i, tap) = 0;
      }
      J += st.stimulus(i);
      Real V = st.V(i);
      std::int32_t ref_end = st.ref_end(i);
      const bool fired = soma_step(V, ref_end, J, n, p);
      st.V(i) = V;
      st.ref_end(i) = ref_end;
      st.flags_of_step(n)(i) = fired ? 1 : 0;
      if (fired) st.count(i) += 1;
    });
  }
};

// ---- agent mapping: the study's five kernels ----
template <class Real, class Mem>
struct StimulusStage {  // applyStimulus: Jstim[i] = stimulus[i]
  GalbraithState<Real, Mem> st;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { st.j_stim(i) = st.stimulus(i); }
};

template <class Real, class Mem>
struct DendriteStage {  // updateDendrites: Jspike[i] = sum over synapses into i of Jin_s w_s
  GalbraithState<Real, Mem> st;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    Real sum = 0;
    for (std::int64_t k = st.offsets(i); k < st.offsets(i + 1); ++k) sum += st.synapse_current(k) * st.weight(k);
    st.j_spike(i) = sum;
  }
};

template <class Real, class Mem>
struct SomaStage {  // updateSomas: a spike sets the axon buffer
  GalbraithState<Real, Mem> st;
  SomaParams<Real> p;
  std::int32_t n = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    Real V = st.V(i);
    std::int32_t ref_end = st.ref_end(i);
    if (soma_step(V, ref_end, st.j_spike(i) + st.j_stim(i), n, p)) {
      st.axon(i) = 1;
      st.count(i) += 1;
    }
    st.V(i) = V;
    st.ref_end(i) = ref_end;
  }
};

template <class Real, class Mem>
struct AxonStage {  // updateAxons: spike[i] = buffer[i]; buffer[i] = 0 (no transmission delay)
  GalbraithState<Real, Mem> st;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    st.spike(i) = st.axon(i);
    st.axon(i) = 0;
  }
};

// updateSynapses (Listing 4.6): a team of threads per synapse, one filter tap per thread. On a spike of the source
// every tap adds h[k] at (n + k) mod L; then the synapse's current is the tap of step n, which is cleared.
template <class Real, class Mem, class Exec>
struct SynapseStage {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  GalbraithState<Real, Mem> st;
  std::int32_t n = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t s = team.league_rank();
    const std::int64_t tap = n % st.taps;
    Real* buffer = &st.synapse_buffer(s * st.stride);
    if (st.spike(st.src(s))) {
      const std::int64_t taps = st.taps;
      const auto filter = st.filter;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, taps), [&](const std::int64_t k) {
        const std::int64_t slot = tap + k < taps ? tap + k : tap + k - taps;
        buffer[slot] += filter(k);
      });
      team.team_barrier();
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      st.synapse_current(s) = buffer[tap];
      buffer[tap] = 0;
    });
  }
};

}  // namespace kbrain::galbraith
