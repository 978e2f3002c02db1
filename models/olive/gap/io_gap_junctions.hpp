#pragma once
// Gap-junction current of one cell: I_c = sum_i g_i * (0.8*exp(-dV_i^2/100) + 0.2) * dV_i, dV_i = V_d - V_d,i,
// summed over the cell's incoming junctions in a fixed order (so every backend adds in the same order).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/olive/cell/io_math.hpp"
#include "models/olive/cell/io_state.hpp"

namespace kbrain::olive {

// The term as (0.8 g * exp(...) + 0.2 g) * dV: with 0.8 g and 0.2 g computed once per kernel (the mesh keeps them,
// constant-conductance CSR rows hoist them) it is one fused multiply-add and one product per junction, and the
// double-precision literals 0.8 and 0.2 are not rebuilt at every junction (on a GPU, four register moves each).
// Measured faster than g * (0.8 * exp(...) + 0.2) * dV on the double mesh step
// (docs/journal/2026-11-22-issue3-pass5.md).
// The exponential is Math::gap_exp (io_math.hpp: where and why the exponent is capped).
template <class Math, class Real>
KOKKOS_FORCEINLINE_FUNCTION Real gap_term_scaled(Real g08, Real g02, Real dv) {
  return (g08 * Math::gap_exp(dv * dv * Real(-0.01)) + g02) * dv;
}
template <class Math, class Real>
KOKKOS_FORCEINLINE_FUNCTION Real gap_term(Real g, Real dv) {
  return gap_term_scaled<Math>(Real(0.8) * g, Real(0.2) * g, dv);
}

// General networks: CSR of incoming junctions (sources of cell i are sources[offsets[i] .. offsets[i+1])).
// Conductance per junction, or one constant when `g` is empty.
template <class Real, class Mem>
struct CsrGapJunctions {
  // The junction terms' exponential inside the fused step kernel (IoStepFunctor): the gap kernels' capped one
  // without range test (io_math.hpp; the same values). The fused CSR step has 64 or 128 registers
  // (csr_step_min_blocks, io_step_launch.hpp), room the 40-register mesh step lacks; in double it made the dense
  // fused step faster (docs/journal/2026-11-22-issue3-pass9.md).
  using fused_step_math = GapKernelMath;
  Kokkos::View<const std::int64_t*, Mem> offsets;
  Kokkos::View<const std::int32_t*, Mem> sources;
  Kokkos::View<const Real*, Mem> g;  // extent 0 => g_const
  Real g_const = Real(0);

  template <class Math>
  KOKKOS_INLINE_FUNCTION Real current(int i, Real vd, const StateView<Real, Mem>& s) const {
    Real ic = 0;
    const std::int64_t b = offsets(i), e = offsets(i + 1);
    if (g.extent(0) == 0) {
      for (std::int64_t k = b; k < e; ++k) ic += gap_term<Math>(g_const, vd - s(V_DEND, sources(k)));
    } else {
      for (std::int64_t k = b; k < e; ++k) ic += gap_term<Math>(g(k), vd - s(V_DEND, sources(k)));
    }
    return ic;
  }

  // Host: currents of cells b .. b+len-1 (len <= 64) into out[]. The junctions of the whole chunk are one
  // contiguous CSR range: their terms are computed in SIMD blocks across cell boundaries (rows of 8 or 10 junctions
  // would each leave most of a vector loop to its scalar remainder), with each junction's own cell voltage spread
  // beside it, then added per cell in junction order, so the sums equal current() for the same Math.
  template <class Math>
  void chunk_currents(int b, int len, const StateView<Real, Mem>& s, Real* out) const {
    constexpr int kBlock = 256;
    Real t[kBlock], own[kBlock];
    const Real* vdend = &s(V_DEND, 0);  // raw row: lets the vectoriser gather
    const std::int32_t* src = sources.data();
    const std::int64_t* off = offsets.data();
    for (int k = 0; k < len; ++k) out[k] = 0;
    int first = 0;  // first cell whose junctions are not all summed yet
    for (std::int64_t j0 = off[b], end = off[b + len]; j0 < end; j0 += kBlock) {
      const int m = end - j0 < kBlock ? static_cast<int>(end - j0) : kBlock;
      const std::int64_t j1 = j0 + m;
      // Cell k's junctions within this block: [lo, hi) relative to j0.
      const auto lo = [&](int k) { return static_cast<int>((off[b + k] > j0 ? off[b + k] : j0) - j0); };
      const auto hi = [&](int k) { return static_cast<int>((off[b + k + 1] < j1 ? off[b + k + 1] : j1) - j0); };
      for (int k = first; k < len && off[b + k] < j1; ++k)
        for (int q = lo(k), e = hi(k); q < e; ++q) own[q] = vdend[b + k];
      if (g.extent(0) == 0) {
#pragma omp simd
        for (int q = 0; q < m; ++q) t[q] = gap_term<Math>(g_const, own[q] - vdend[src[j0 + q]]);
      } else {
        const Real* gj = g.data() + j0;
#pragma omp simd
        for (int q = 0; q < m; ++q) t[q] = gap_term<Math>(gj[q], own[q] - vdend[src[j0 + q]]);
      }
      for (int k = first; k < len && off[b + k] < j1; ++k) {
        Real ic = out[k];
        for (int q = lo(k), e = hi(k); q < e; ++q) ic += t[q];
        out[k] = ic;
        if (off[b + k + 1] <= j1) first = k + 1;
      }
    }
  }
};

// 2-D rows x cols mesh, 8 neighbours, neighbours computed from the index (no connectivity traffic).
// Order: (-1,-1) (-1,0) (-1,+1) (0,-1) (0,+1) (+1,-1) (+1,0) (+1,+1) — the same order mesh2d's CSR uses.
// A missing neighbour (border) contributes nothing, exactly as padding with the cell's own V_d.
template <class Real, class Mem>
struct MeshGapJunctions {
  int rows = 0, cols = 0;
  Real g = Real(0.04);
  double inv_cols = 0;  // 1.0 / cols: build with make(), which sets these four
  Real g08 = 0, g02 = 0;  // 0.8 g, 0.2 g (gap_term_scaled): bit for bit what gap_term computes from g

  static MeshGapJunctions make(int rows, int cols, Real g) {
    MeshGapJunctions m;
    m.rows = rows, m.cols = cols, m.g = g, m.inv_cols = 1.0 / cols;
    m.g08 = Real(0.8) * g, m.g02 = Real(0.2) * g;
    return m;
  }

  template <class Math>
  KOKKOS_INLINE_FUNCTION Real current(int i, Real vd, const StateView<Real, Mem>& s) const {
    // Row and column without an integer division (about 20 instructions on a GPU): for a 32-bit index the double
    // quotient is within 1e-6 of i / cols, so its truncation is the row or one less, which the test corrects.
    int r = static_cast<int>(static_cast<double>(i) * inv_cols), c = i - r * cols;
    if (c < 0) {
      --r, c += cols;
    } else if (c >= cols) {
      ++r, c -= cols;
    }
    return current_at<Math>(r, c, vd, [&](const int rr, const int cc) { return s(V_DEND, rr * cols + cc); });
  }

  // The current of the cell at row r, column c with V_d = vd, neighbour V_d from vd_at(row, column): the same sum
  // in the same order as current(), for kernels that stage the neighbours' V_d (io_mesh_pair.hpp).
  template <class Math, class VdAt>
  KOKKOS_FORCEINLINE_FUNCTION Real current_at(const int r, const int c, const Real vd, const VdAt& vd_at) const {
    Real ic = 0;
    for (int dr = -1; dr <= 1; ++dr) {
      const int rr = r + dr;
      if (rr < 0 || rr >= rows) continue;
      for (int dc = -1; dc <= 1; ++dc) {
        const int cc = c + dc;
        if ((dr == 0 && dc == 0) || cc < 0 || cc >= cols) continue;
        ic += gap_term_scaled<Math>(g08, g02, vd - vd_at(rr, cc));
      }
    }
    return ic;
  }

  // Host: currents of cells b .. b+len-1 (len <= 64) into out[], one SIMD loop per neighbour direction, in the
  // order current() uses. A missing neighbour adds gap_term(g, 0) == 0, exactly as current() skipping it.
  template <class Math>
  void chunk_currents(int b, int len, const StateView<Real, Mem>& s, Real* out) const {
    const Real* vdend = &s(V_DEND, 0);  // raw row
    int col[64];
    // Column of each cell: one integer division per chunk, then a running count (a division per cell and
    // direction made the Serial mesh step slower than the CSR one; docs/journal/2026-11-22-one-h200-1a3df5c.md).
    for (int k = 0, c = b % cols; k < len; ++k) {
      col[k] = c;
      if (++c == cols) c = 0;
    }
    for (int k = 0; k < len; ++k) out[k] = 0;
    // Every neighbour index of the chunk lies inside the mesh when the chunk starts at or after cell cols + 1 and
    // ends at or before cell N - cols - 2: then no cell of it is in the first or last row, each direction is one
    // contiguous (unaligned) vector load, and only the column decides whether the neighbour exists. Chunks of the
    // first and last rows take the general path, which builds neighbour indices (a vector gather: slow on some
    // Intel cores).
    const bool inner_rows =
        static_cast<std::int64_t>(b) >= cols + 1 && static_cast<std::int64_t>(b) + len + cols <= std::int64_t(rows) * cols;
    if (inner_rows) {
      const Real* v = vdend + b;
      for (int dr = -1; dr <= 1; ++dr)
        for (int dc = -1; dc <= 1; ++dc) {
          if (dr == 0 && dc == 0) continue;
          const Real* vn = v + (dr * cols + dc);
#pragma omp simd
          for (int k = 0; k < len; ++k) {
            const bool exists = col[k] + dc >= 0 && col[k] + dc < cols;
            out[k] += gap_term_scaled<Math>(g08, g02, exists ? v[k] - vn[k] : Real(0));
          }
        }
      return;
    }
    int neighbour[64], row[64];
    for (int k = 0, r = b / cols; k < len; ++k) {
      row[k] = r;
      if (col[k] == cols - 1) ++r;
    }
    for (int dr = -1; dr <= 1; ++dr)
      for (int dc = -1; dc <= 1; ++dc) {
        if (dr == 0 && dc == 0) continue;
        const int offset = dr * cols + dc;
#pragma omp simd
        for (int k = 0; k < len; ++k) {
          const int rr = row[k] + dr, cc = col[k] + dc;
          neighbour[k] = (rr >= 0 && rr < rows && cc >= 0 && cc < cols) ? b + k + offset : b + k;
        }
#pragma omp simd
        for (int k = 0; k < len; ++k) out[k] += gap_term_scaled<Math>(g08, g02, vdend[b + k] - vdend[neighbour[k]]);
      }
  }
};

}  // namespace kbrain::olive
