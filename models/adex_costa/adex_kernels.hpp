#pragma once
// The kernels of one step of the dense plastic AdEx network, in the step order of the study
// (docs/models/adex-costa.md): 1 neurons; 2 spike flags; 3-4 the per-row and per-column trace values of the step
// (one launch: StepStart);
// 5 the synapse pass (adex_synapse_pass.hpp: pre updates and the winner of each column, post updates and the m̄
// summands); then adex_reduce.hpp: 6 the fixed-order m̄ tree; 7 each column's current from its winner. One body for
// GPU threads and host loops. Real (float | double) is the storage of the neurons and of the synapse arrays; the
// synapse arithmetic, the per-neuron traces, time and the m̄ sums are double in both precisions: the U update
// subtracts two trace products of similar size, and in float arithmetic that cancellation alone puts small U values
// 1e-4 (relative) off the double model, while the pass is limited by memory traffic, not by arithmetic.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "core/rng/counter_rng.hpp"
#include "models/adex_costa/adex_connectivity.hpp"
#include "models/adex_costa/adex_kernel_params.hpp"
#include "models/adex_costa/adex_parameters.hpp"
#include "models/adex_costa/adex_state.hpp"
#include "models/adex_costa/adex_synapse_pass.hpp"

namespace kbrain::adex {
// Steps 1-4 are parts of one launch (StepStart): each part's work at index k reads only what the same index's
// earlier parts wrote (a row's flag reads its own neuron's crossing in mxm, a trace its own flag), so one thread per
// index runs them in order and a step needs one launch for them instead of five. Each part holds its own constants
// and takes the state from StepStart, so the launch carries the state once.

// 1. AdEx, forward Euler from the old state, threshold on the updated values.
template <class Real>
struct NeuronStep {
  KernelParams<Real> p;
  template <class State>
  KOKKOS_INLINE_FUNCTION void operator()(const State& st, const std::int64_t j) const {
    Real V = st.V(j), VT = st.VT(j), x = st.x(j);
    const Real dV = (p.gL * (p.EL - V) + p.gL * p.DeltaT * kx::exp((V - VT) / p.DeltaT) + st.I(j) - x) / p.C;
    const Real dVT = -(VT - p.VTrest) / p.tauVT;
    const Real dx = (p.c * (V - p.EL) - x) / p.tauw;
    V += p.dt * dV;
    VT += p.dt * dVT;
    x += p.dt * dx;
    const int spike = V > VT ? 1 : 0;
    if (spike) {
      V = p.Vr;
      x += p.b;
      VT = p.VTmax;
    }
    st.V(j) = V;
    st.VT(j) = VT;
    st.x(j) = x;
    st.crossed(j) = spike;
  }
};

// 2. Spike flags. Rows: an imposed pattern, the neurons' own crossings (mxm), Poisson-Gaussian draws keyed by
// (seed, source, step) or a spike list; columns (nxm): per post_events. kind codes: see FlagSource.
enum class FlagSource : int { All, Even, Crossed, Poisson, None, List };

template <class Mem>
struct RowFlags {
  FlagSource source;
  std::int64_t step;
  std::uint64_t seed;
  double position, radius, rate_on, rate_off, dt_s;  // Poisson
  Kokkos::View<int*, Mem> listed;                   // List: the step's listed sources (ListFlags), cleared here
  template <class State>
  KOKKOS_INLINE_FUNCTION void operator()(const State& st, const std::int64_t i) const {
    int f = 0;
    switch (source) {
      case FlagSource::All: f = 1; break;
      case FlagSource::Even: f = i % 2 == 0 ? 1 : 0; break;
      case FlagSource::Crossed: f = st.crossed(i); break;
      case FlagSource::Poisson: {
        const double k = double(i + 1) - position;
        const double rate = kx::exp(-k * k / (2 * radius * radius)) * (rate_on - rate_off) + rate_off;
        f = counter_uniform(seed, std::uint64_t(i), std::uint64_t(step)) < rate * dt_s ? 1 : 0;
        break;
      }
      case FlagSource::List:
        f = listed(i);
        listed(i) = 0;
        break;
      case FlagSource::None: f = 0; break;
    }
    st.pre_flag(i) = f;
  }
};

struct ColumnFlags {
  FlagSource source;  // All, Even, Crossed or None
  template <class State>
  KOKKOS_INLINE_FUNCTION void operator()(const State& st, const std::int64_t j) const {
    st.post_flag(j) = source == FlagSource::All ? 1 : source == FlagSource::Even ? (j % 2 == 0 ? 1 : 0)
                      : source == FlagSource::Crossed ? st.crossed(j) : 0;
  }
};

// A spike list's sources of the step, marked before StepStart (a scatter: its own launch).
template <class Mem>
struct ListFlags {
  Kokkos::View<int*, Mem> listed;
  Kokkos::View<const std::int32_t*, Mem> sources;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const { listed(sources(k)) = 1; }
};

// 3. Per row: FFp at t before and after this step's increment; the r and u decays since the row's last event.
struct RowTraces {
  KernelParams<double> p;
  double t;
  template <class State>
  KOKKOS_INLINE_FUNCTION void operator()(const State& st, const std::int64_t i) const {
    const double since = t - st.t_pre(i);
    const double before = st.ffp_val(i) * kx::exp(-since / p.tau_FFp);
    st.ffp_before(i) = before;
    if (st.pre_flag(i)) {
      st.decay_r(i) = kx::exp(-since / p.tau_r);
      st.decay_u(i) = kx::exp(-since / p.tau_u);
      st.ffp_now(i) = before + 1.0;
      st.ffp_val(i) = before + 1.0;
      st.t_pre(i) = t;
    } else {
      st.ffp_now(i) = before;
    }
  }
};

// 4. Per column: FBp and FBn at t before this step's increment (which a post update adds).
struct ColumnTraces {
  KernelParams<double> p;
  double t;
  bool post_updates;
  template <class State>
  KOKKOS_INLINE_FUNCTION void operator()(const State& st, const std::int64_t j) const {
    const double since = t - st.t_post(j);
    const double fbp = st.fbp_val(j) * kx::exp(-since / p.tau_FBp);
    const double fbn = st.fbn_val(j) * kx::exp(-since / p.tau_FBn);
    st.fbp_before(j) = fbp;
    st.fbn_before(j) = fbn;
    if (post_updates && st.post_flag(j)) {
      st.fbp_val(j) = fbp + 1.0;
      st.fbn_val(j) = fbn + 1.0;
      st.t_post(j) = t;
    }
  }
};

// 1-4 at index k (row k and column k), and the events counted where they happen. Columns have flags of their own
// only in nxm (in mxm they are the rows').
template <class Real, class Mem>
struct StepStart {
  AdexState<Real, Mem> st;
  NeuronStep<Real> neuron;
  RowFlags<Mem> row_flag;
  ColumnFlags column_flag;
  bool columns_flagged;  // nxm
  RowTraces row_traces;
  ColumnTraces column_traces;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    if (k < st.n_post) neuron(st, k);
    if (k < st.n_pre) {
      row_flag(st, k);
      row_traces(st, k);
      st.pre_events(k) += st.pre_flag(k);
    }
    if (k < st.n_post) {
      if (columns_flagged) column_flag(st, k);
      column_traces(st, k);
      if (column_traces.post_updates) st.post_events(k) += st.post_flag(k);
      st.neuron_spikes(k) += st.crossed(k);
    }
  }
};

// Initial state of the synapses: the connection rule (or the uploaded flags), U and A from the row profile
// (initial_U, initial_A of rows 0..99, computed on the host), r = 1, u = 0.
template <class Real, class Mem>
struct SynapseInit {
  AdexState<Real, Mem> st;
  Kokkos::View<const Real*, Mem> profile_U, profile_A;
  Connectivity connectivity;  // File: the flags are already uploaded
  Parity parity;
  std::int64_t row_begin;
  // k: a synapse of this part, row-major over rows x n_post (the padding stays as allocated: never read)
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    const std::int64_t row = k / st.n_post, i = row_begin + row, j = k - row * st.n_post;
    const std::int64_t id = st.slot(i, j);
    if (connectivity != Connectivity::File)
      st.conn(st.flag_slot(i, j)) = connected_by_rule(connectivity, parity, i, j) ? 1 : 0;
    st.U(id) = profile_U(i % 100);
    st.A(id) = profile_A(i % 100);
    st.R(id) = Real(1);
    st.u(id) = Real(0);
  }
};

}  // namespace kbrain::adex
