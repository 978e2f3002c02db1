#pragma once
// The kernels of one step of the dense plastic AdEx network, in the step order of the study
// (docs/models/adex-costa.md): 1 neurons; 2 spike flags; 3-4 the per-row and per-column trace values of the step;
// 5 the synapse pass (pre updates and the winner of each column, post updates and the m̄ summands); then
// adex_reduce.hpp: 6 the fixed-order m̄ tree; 7 each column's current from its winner. One body for GPU threads and host loops. Real (float | double)
// is the storage of the neurons and of the synapse arrays; the synapse arithmetic, the per-neuron traces, time and
// the m̄ sums are double in both precisions: the U update subtracts two trace products of similar size, and in
// float arithmetic that cancellation alone puts small U values 1e-4 (relative) off the double model, while the
// pass is limited by memory traffic, not by arithmetic.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "core/rng/counter_rng.hpp"
#include "models/adex_costa/adex_connectivity.hpp"
#include "models/adex_costa/adex_parameters.hpp"
#include "models/adex_costa/adex_state.hpp"

namespace kbrain::adex {

template <class Real>
struct KernelParams {
  Real C, gL, EL, DeltaT, VTrest, VTmax, tauVT, tauw, c, b, Vr, dt;
  Real tau_FFp, tau_FBp, tau_FBn, tau_r, tau_u, s, AFBn, AFBp, AFFp, etaU, etaA, Umin, Umax, Amin, Amax;
  double half_etaA;  // etaA * 0.5, the factor of m̄

  static KernelParams from(const AdexCostaParams& p, double dt) {
    return {Real(p.C), Real(p.gL), Real(p.EL), Real(p.DeltaT), Real(p.VTrest), Real(p.VTmax), Real(p.tauVT),
            Real(p.tauw), Real(p.c), Real(p.b), Real(p.Vr), Real(dt), Real(p.tau_FFp), Real(p.tau_FBp),
            Real(p.tau_FBn), Real(p.tau_r), Real(p.tau_u), Real(p.s), Real(p.AFBn), Real(p.AFBp), Real(p.AFFp),
            Real(p.etaU), Real(p.etaA), Real(p.Umin), Real(p.Umax), Real(p.Amin), Real(p.Amax), p.etaA * 0.5};
  }
};

template <class Real>
KOKKOS_INLINE_FUNCTION Real clip(Real v, Real lo, Real hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// 1. AdEx, forward Euler from the old state, threshold on the updated values.
template <class Real, class Mem>
struct NeuronStep {
  AdexState<Real, Mem> st;
  KernelParams<Real> p;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t j) const {
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

template <class Real, class Mem>
struct RowFlags {
  AdexState<Real, Mem> st;
  FlagSource source;
  std::int64_t step;
  std::uint64_t seed;
  double position, radius, rate_on, rate_off, dt_s;  // Poisson
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
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
      case FlagSource::None:
      case FlagSource::List: f = 0; break;
    }
    st.pre_flag(i) = f;
  }
};

template <class Real, class Mem>
struct ColumnFlags {
  AdexState<Real, Mem> st;
  FlagSource source;  // All, Even, Crossed or None
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t j) const {
    st.post_flag(j) = source == FlagSource::All ? 1 : source == FlagSource::Even ? (j % 2 == 0 ? 1 : 0)
                      : source == FlagSource::Crossed ? st.crossed(j) : 0;
  }
};

template <class Mem>
struct ListFlags {
  Kokkos::View<int*, Mem> flags;
  Kokkos::View<const std::int32_t*, Mem> sources;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const { flags(sources(k)) = 1; }
};

// The step's counts (pre events, post events, neuron crossings) into step_counts, by a deterministic reduction.
template <class Real, class Mem>
struct CountFlags {
  using value_type = long long[];
  using size_type = std::int64_t;
  size_type value_count = NUM_STEP_COUNTS;
  AdexState<Real, Mem> st;
  bool post_updates;
  KOKKOS_INLINE_FUNCTION void init(value_type v) const {
    for (int k = 0; k < NUM_STEP_COUNTS; ++k) v[k] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
    for (int k = 0; k < NUM_STEP_COUNTS; ++k) dst[k] += src[k];
  }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k, value_type v) const {
    if (k < st.n_pre) v[PRE_EVENTS] += st.pre_flag(k);
    if (k < st.n_post) {
      if (post_updates) v[POST_EVENTS] += st.post_flag(k);
      v[NEURON_SPIKES] += st.crossed(k);
    }
  }
};

// 3. Per row: FFp at t before and after this step's increment; the r and u decays since the row's last event.
template <class Real, class Mem>
struct RowTraces {
  AdexState<Real, Mem> st;
  KernelParams<double> p;
  double t;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
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
template <class Real, class Mem>
struct ColumnTraces {
  AdexState<Real, Mem> st;
  KernelParams<double> p;
  double t;
  bool post_updates;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t j) const {
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

// 5. The synapse pass. Each (block, column) walks the block's rows in ascending order, so the winner of a column and
// its m̄ partial sum have a fixed order on every backend. A synapse is touched only when its row fired (pre update),
// its column fired (post update) or its column owes last step's m̄ part. Two loop orders share one body (load, then
// update): on GPUs a thread per (block, column) walks the rows (neighbouring threads read neighbouring columns),
// loading the synapses of RowsInFlight rows before it updates the first of them; on CPUs a thread per (block, chunk
// of columns) walks the rows with the columns innermost, so each row is a contiguous stream.

// What a (block, column) gathers while it walks its rows.
struct ColumnScan {
  int winner = -1;
  double current = 0, sum = 0;
  long long count = 0;
};

// Per column of the step: its flags and its traces before this step's increment.
struct ColumnStep {
  bool post, owes;
  double shift, fbp, fbn;
};

// The arithmetic of one synapse, shared by both loop orders (the same operations in the same order: the same bits).
// The owed m̄ part of last step's post update.
KOKKOS_FORCEINLINE_FUNCTION double pay_owed(double A, double shift, const KernelParams<double>& p) {
  return clip(A - shift, p.Amin, p.Amax);
}

// The pre update of a synapse whose row fired: the current it injects (from A after any owed part) and the new U,
// R and u, from the values at the row's last event decayed exactly.
struct PreUpdate {
  double current, U, R, u;
};
KOKKOS_FORCEINLINE_FUNCTION PreUpdate pre_update(double A, double U, double R_old, double u_old, double decay_r,
                                                 double decay_u, double fbp, double fbn, double ffp_before,
                                                 const KernelParams<double>& p) {
  double R = (R_old - 1.0) * decay_r + 1.0;
  double u = U + (u_old - U) * decay_u;
  const double current = p.s * A * R * u;
  U = clip(U + p.etaU * (-p.AFBn * fbn * fbp + p.AFBp * fbp * ffp_before), p.Umin, p.Umax);
  R = R - R * u;
  u = u + U * (1.0 - u);
  return {current, U, R, u};
}

// The first part of the post update of a synapse whose column fired: A += etaA * term, and term joins m̄.
KOKKOS_FORCEINLINE_FUNCTION double post_term(double ffp_now, double fbn, const KernelParams<double>& p) {
  return p.AFFp * ffp_now * fbn;
}

// The values of one synapse that its update reads (U, R, u only when its row fired).
template <class Real>
struct SynapseValues {
  bool touched = false, connected = false;
  Real A = 0, U = 0, R = 0, u = 0;
};

// Rows whose synapse loads a GPU thread issues before it updates the first of them. The loads of later rows do not
// depend on the stores of earlier ones, but the compiler cannot know that the arrays do not overlap; issuing them
// early shortens a thread's chain of memory latencies, at the price of registers (fewer resident threads). One row:
// bench/README.md has the A/B of 1, 2, 4 and 8.
inline constexpr int kGpuRowsInFlight = 1;

template <class Real, class Mem, int RowsInFlight = kGpuRowsInFlight>
struct SynapsePass {
  AdexState<Real, Mem> st;
  KernelParams<double> p;
  std::int64_t row_begin = 0;  // first row of block 0 (a rank's part, or a streamed chunk of it)
  std::int64_t rows = 0;       // rows of this pass
  bool post_updates = true;
  std::int64_t block_offset = 0;  // index of block 0 among the partial sums' blocks (a streamed chunk's first block)

  KOKKOS_INLINE_FUNCTION ColumnStep column(std::int64_t j) const {
    const bool owes = st.post_prev(j) != 0;
    return {post_updates && st.post_flag(j) != 0, owes, owes ? p.half_etaA * st.mbar(0) : 0.0, st.fbp_before(j),
            st.fbn_before(j)};
  }
  KOKKOS_INLINE_FUNCTION std::int64_t row_end(std::int64_t b) const {
    const std::int64_t last = row_begin + (b + 1) * kRowsPerBlock;
    return last < row_begin + rows ? last : row_begin + rows;
  }
  KOKKOS_INLINE_FUNCTION std::int64_t slot(std::int64_t i, std::int64_t j) const { return (i - row_begin) * st.n_post + j; }

  // The connection flag and the synapse values are loaded together, not one after the other: a dependent load
  // would double the memory latency of every row (the values share their memory sectors with the neighbouring
  // columns' anyway).
  KOKKOS_INLINE_FUNCTION SynapseValues<Real> load(std::int64_t i, bool pre, std::int64_t j, const ColumnStep& c) const {
    SynapseValues<Real> v;
    if (!(pre || c.post || c.owes)) return v;
    const std::int64_t id = slot(i, j);
    v.touched = true;
    v.connected = st.conn(id) != 0;
    v.A = st.A(id);
    if (pre) {
      v.U = st.U(id);
      v.R = st.R(id);
      v.u = st.u(id);
    }
    return v;
  }

  // Synapse (i, j): the pre update if row i fired, the first part of the post update if column j fired.
  KOKKOS_INLINE_FUNCTION void update(std::int64_t i, bool pre, std::int64_t j, const ColumnStep& c,
                                     const SynapseValues<Real>& v, ColumnScan& scan) const {
    if (!v.touched || !v.connected) return;
    const std::int64_t id = slot(i, j);
    double A = v.A;
    if (c.owes) A = pay_owed(A, c.shift, p);
    if (pre) {
      const PreUpdate n =
          pre_update(A, v.U, v.R, v.u, st.decay_r(i), st.decay_u(i), c.fbp, c.fbn, st.ffp_before(i), p);
      scan.current = n.current;
      scan.winner = int(i);
      st.R(id) = Real(n.R);
      st.u(id) = Real(n.u);
      st.U(id) = Real(n.U);
    }
    if (c.post) {
      const double term = post_term(st.ffp_now(i), c.fbn, p);
      A = A + p.etaA * term;
      scan.sum += term;
      ++scan.count;
    }
    if (c.owes || c.post) st.A(id) = Real(A);
  }

  KOKKOS_INLINE_FUNCTION void store(std::int64_t b, std::int64_t j, const ColumnScan& scan) const {
    const std::int64_t k = (block_offset + b) * st.n_post + j;
    st.win_row(k) = scan.winner;
    st.win_I(k) = Real(scan.current);
    st.msum(k) = scan.sum;
    st.mcount(k) = scan.count;
  }

  // GPUs: k = (block, column).
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    const std::int64_t b = k / st.n_post;
    walk(b, k - b * st.n_post);
  }

  // Column j of block b. Rows are updated in ascending order; only their loads run ahead.
  KOKKOS_INLINE_FUNCTION void walk(const std::int64_t b, const std::int64_t j) const {
    const ColumnStep c = column(j);
    ColumnScan scan;
    const std::int64_t last = row_end(b);
    for (std::int64_t i = row_begin + b * kRowsPerBlock; i < last; i += RowsInFlight) {
      bool pre[RowsInFlight];
      SynapseValues<Real> v[RowsInFlight];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int r = 0; r < RowsInFlight; ++r) {
        pre[r] = i + r < last && st.pre_flag(i + r) != 0;
        if (i + r < last) v[r] = load(i + r, pre[r], j, c);
      }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int r = 0; r < RowsInFlight; ++r) update(i + r, pre[r], j, c, v[r], scan);
    }
    store(b, j, scan);
  }
};

// CPUs: k = (block, chunk of kColumnsPerChunk columns), the columns innermost. A row's columns are one SIMD loop in
// which every lane computes and stores: an unconnected or untouched synapse stores back the values it read, and an
// m̄ summand that does not count adds 0 to a sum that is never -0 (the summands are not negative), so the results
// are the GPU body's bits while the loop has no branch left to stop the compiler from vectorising it. The chunk's
// column values are held as arrays, one per field, for the same reason.
template <class Real, class Mem>
struct SynapsePassChunked {
  SynapsePass<Real, Mem> pass;

  // One chunk's columns: their flags and traces of the step, and what their walk gathers.
  struct Columns {
    double shift[kColumnsPerChunk], fbp[kColumnsPerChunk], fbn[kColumnsPerChunk];
    std::uint8_t post[kColumnsPerChunk], owes[kColumnsPerChunk];  // 0 or 1 (GCC does not vectorise loads of bool)
    double current[kColumnsPerChunk], sum[kColumnsPerChunk];
    long long count[kColumnsPerChunk];
    int winner[kColumnsPerChunk];
  };

  void operator()(const std::int64_t k) const {
    const auto& st = pass.st;
    const std::int64_t b = k / st.chunks, first = (k - b * st.chunks) * kColumnsPerChunk;
    const std::int64_t width = first + kColumnsPerChunk < st.n_post ? kColumnsPerChunk : st.n_post - first;
    Columns col;
    for (std::int64_t c = 0; c < width; ++c) {
      const ColumnStep step = pass.column(first + c);
      col.shift[c] = step.shift, col.fbp[c] = step.fbp, col.fbn[c] = step.fbn;
      col.post[c] = step.post, col.owes[c] = step.owes;
      col.current[c] = 0, col.sum[c] = 0, col.count[c] = 0, col.winner[c] = -1;
    }
    for (std::int64_t i = pass.row_begin + b * kRowsPerBlock; i < pass.row_end(b); ++i) {
      if (st.pre_flag(i) != 0)
        row<true>(i, first, width, col);
      else
        row<false>(i, first, width, col);
    }
    for (std::int64_t c = 0; c < width; ++c)
      pass.store(b, first + c, ColumnScan{col.winner[c], col.current[c], col.sum[c], col.count[c]});
  }

  template <bool Pre>
  void row(std::int64_t i, std::int64_t first, std::int64_t width, Columns& col) const {
    const auto& st = pass.st;
    const KernelParams<double> p = pass.p;  // a copy: stores through A, R, ... cannot change it, so it stays in registers
    const std::int64_t id = pass.slot(i, first);
    const std::uint8_t* conn = st.conn.data() + id;
    Real *R = st.R.data() + id, *u = st.u.data() + id, *U = st.U.data() + id, *A = st.A.data() + id;
    const double decay_r = st.decay_r(i), decay_u = st.decay_u(i), ffp_before = st.ffp_before(i);
    const double ffp_now = st.ffp_now(i);
    const int winner = int(i);
#pragma omp simd
    for (std::int64_t c = 0; c < width; ++c) {
      const bool on = conn[c] != 0;
      const double A_paid = col.owes[c] != 0 ? pay_owed(A[c], col.shift[c], p) : double(A[c]);
      const double term = post_term(ffp_now, col.fbn[c], p);
      const bool adds = on && col.post[c] != 0;
      col.sum[c] += adds ? term : 0.0;
      col.count[c] += adds ? 1 : 0;
      const double A_new = col.post[c] != 0 ? A_paid + p.etaA * term : A_paid;
      if constexpr (Pre) {
        const PreUpdate n = pre_update(A_paid, U[c], R[c], u[c], decay_r, decay_u, col.fbp[c], col.fbn[c], ffp_before, p);
        col.current[c] = on ? n.current : col.current[c];
        col.winner[c] = on ? winner : col.winner[c];
        R[c] = on ? Real(n.R) : R[c];
        u[c] = on ? Real(n.u) : u[c];
        U[c] = on ? Real(n.U) : U[c];
      }
      A[c] = on ? Real(A_new) : A[c];
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
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t id) const {
    const std::int64_t row = id / st.n_post, i = row_begin + row, j = id - row * st.n_post;
    if (connectivity != Connectivity::File) st.conn(id) = connected_by_rule(connectivity, parity, i, j) ? 1 : 0;
    st.U(id) = profile_U(i % 100);
    st.A(id) = profile_A(i % 100);
    st.R(id) = Real(1);
    st.u(id) = Real(0);
  }
};

}  // namespace kbrain::adex
