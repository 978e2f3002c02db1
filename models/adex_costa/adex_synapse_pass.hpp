#pragma once
// Step 5 of the dense plastic AdEx step (adex_kernels.hpp has the others): the synapse pass over the dense matrix,
// its per-synapse arithmetic and per-column bookkeeping (SynapsePass) and its CPU loop order (SynapsePassChunked);
// adex_synapse_groups.hpp has its GPU loop order.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/adex_costa/adex_kernel_params.hpp"
#include "models/adex_costa/adex_state.hpp"
#include "models/adex_costa/adex_sum_order.hpp"

namespace kbrain::adex {

// 5. The synapse pass. Each (block, column) walks the block's rows in ascending order, so the winner of a column and
// its m̄ partial sum have a fixed order on every backend. A synapse is touched only when its row fired (pre update),
// its column fired (post update) or its column owes last step's m̄ part. Two loop orders share one body (apply): on
// GPUs a thread per (block, group of columns) walks the rows (neighbouring threads read neighbouring groups); on CPUs
// a thread per (block, chunk of columns) walks the rows with the columns innermost, so each row is a contiguous
// stream.

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

// GPU threads a row block's columns (or groups of columns) take: whole warps, so that no warp spans two row blocks
// (such a warp walks two sets of rows one after the other: bench/README.md, AdEx pass at 10 000 columns).
KOKKOS_INLINE_FUNCTION std::int64_t gpu_columns(std::int64_t columns) { return (columns + 31) / 32 * 32; }

// The pass's parameters and what every loop order does per synapse and per (block, column).
template <class Real, class Mem>
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
  // A streamed chunk's buffer starts at the chunk's first row (row_begin here), not at the state's. slot: the values'
  // (R, u, U, A in the state's layout), flag_slot: the connection flag's.
  KOKKOS_INLINE_FUNCTION std::int64_t slot(std::int64_t i, std::int64_t j) const { return st.value_slot(i - row_begin, j); }
  KOKKOS_INLINE_FUNCTION std::int64_t flag_slot(std::int64_t i, std::int64_t j) const {
    return (i - row_begin) * st.pitch + j;
  }

  // Which of a synapse's values its update changed.
  struct Changed {
    bool pre = false, A = false;
  };

  // Synapse (i, j): the pre update if row i fired, the first part of the post update if column j fired. The new
  // values replace v's (rounded to Real as they are stored).
  KOKKOS_INLINE_FUNCTION Changed apply(std::int64_t i, bool pre, const ColumnStep& c, SynapseValues<Real>& v,
                                       ColumnScan& scan) const {
    Changed changed;
    if (!v.touched || !v.connected) return changed;
    double A = v.A;
    if (c.owes) A = pay_owed(A, c.shift, p);
    if (pre) {
      const PreUpdate n =
          pre_update(A, v.U, v.R, v.u, st.decay_r(i), st.decay_u(i), c.fbp, c.fbn, st.ffp_before(i), p);
      scan.current = n.current;
      scan.winner = int(i);
      v.R = Real(n.R);
      v.u = Real(n.u);
      v.U = Real(n.U);
      changed.pre = true;
    }
    if (c.post) {
      const double term = post_term(st.ffp_now(i), c.fbn, p);
      A = A + p.etaA * term;
      scan.sum += term;
      ++scan.count;
    }
    v.A = Real(A);
    changed.A = c.owes || c.post;
    return changed;
  }

  // Column j's winner in block b; sum group g's sum and count (the first levels of its chunk's tree over the m̄
  // summands: adex_sum_order.hpp).
  KOKKOS_INLINE_FUNCTION void store_winner(std::int64_t b, std::int64_t j, const ColumnScan& scan) const {
    const std::int64_t k = (block_offset + b) * st.n_post + j;
    st.win_row(k) = scan.winner;
    st.win_I(k) = Real(scan.current);
  }
  KOKKOS_INLINE_FUNCTION void store_group(std::int64_t b, std::int64_t g, double sum, long long count) const {
    const std::int64_t k = (block_offset + b) * st.sum_groups + g;
    st.msum(k) = sum;
    st.mcount(k) = count;
  }
};

// CPUs (the values in arrays): k = (block, chunk of kColumnsPerChunk columns), the columns innermost. A row's columns
// are one SIMD loop in
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

  void operator()(const std::int64_t k) const { walk_chunk(pass, k, *this); }

  // Chunk k of `pass`: its columns set up, its rows in ascending order through rows.row<Pre>(i, first, width, col)
  // (this struct's own below; a lab probe's over another layout of the values), then what the columns gathered.
  template <class Rows>
  static void walk_chunk(const SynapsePass<Real, Mem>& pass, const std::int64_t k, const Rows& rows) {
    const auto& st = pass.st;
    const std::int64_t b = k / st.chunks, c = k - b * st.chunks, first = c * kColumnsPerChunk;
    const std::int64_t width = st.chunk_width(c);
    Columns col;
    for (std::int64_t c = 0; c < width; ++c) {
      const ColumnStep step = pass.column(first + c);
      col.shift[c] = step.shift, col.fbp[c] = step.fbp, col.fbn[c] = step.fbn;
      col.post[c] = step.post, col.owes[c] = step.owes;
      col.current[c] = 0, col.sum[c] = 0, col.count[c] = 0, col.winner[c] = -1;
    }
    for (std::int64_t i = pass.row_begin + b * kRowsPerBlock; i < pass.row_end(b); ++i) {
      if (st.pre_flag(i) != 0)
        rows.template row<true>(i, first, width, col);
      else
        rows.template row<false>(i, first, width, col);
    }
    for (std::int64_t c = 0; c < width; ++c)
      pass.store_winner(b, first + c, ColumnScan{col.winner[c], col.current[c]});
    for (std::int64_t g = 0; g * kColumnsPerSumGroup < width; ++g) {  // the sum groups' trees (past width: +0)
      double sums[kColumnsPerSumGroup];
      long long counts[kColumnsPerSumGroup];
      for (std::int64_t e = 0; e < kColumnsPerSumGroup; ++e) {
        const std::int64_t c = g * kColumnsPerSumGroup + e;
        sums[e] = c < width ? col.sum[c] : 0.0;
        counts[e] = c < width ? col.count[c] : 0;
      }
      pairwise_tree<kColumnsPerSumGroup>(sums, counts);
      pass.store_group(b, first / kColumnsPerSumGroup + g, sums[0], counts[0]);
    }
  }

  template <bool Pre>
  void row(std::int64_t i, std::int64_t first, std::int64_t width, Columns& col) const {
    const auto& st = pass.st;
    const KernelParams<double> p = pass.p;  // a copy: stores through A, R, ... cannot change it, so it stays in registers
    const std::int64_t id = pass.slot(i, first);  // arrays: a row's columns are contiguous in each
    const std::uint8_t* conn = st.conn.data() + pass.flag_slot(i, first);
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

}  // namespace kbrain::adex
