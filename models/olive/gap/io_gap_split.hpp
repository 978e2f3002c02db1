#pragma once
// Split gap-junction path for dense CSR networks on GPUs (tens to thousands of junctions per cell).
// The fused step kernel gives each cell one thread, so the 32 threads of a warp read 32 different CSR rows: each
// load of `sources` touches 32 sectors. Here one vector lane group (a warp on CUDA) takes one cell: its lanes read
// consecutive junctions of the row (coalesced), reduce, and one lane stores the cell's current. The step kernel then
// reads that current (PrecomputedGapCurrents) instead of summing itself. Costs 2 x 4/8 bytes per cell and one
// extra launch; pays off in float from several hundred junctions per cell (docs/journal/2026-11-22-random-networks-fused-split-622b975.md). The summation order differs
// from the fused kernel's (a tree over lanes), so results agree to rounding, not bit for bit.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "models/olive/gap/io_gap_junctions.hpp"
#include "models/olive/cell/io_state.hpp"
#include "models/olive/cell/io_step.hpp"

namespace kbrain::olive {

// Gap currents computed by an earlier kernel this step.
template <class Real, class Mem>
struct PrecomputedGapCurrents {
  Kokkos::View<const Real*, Mem> i_c;

  template <class Math>
  KOKKOS_INLINE_FUNCTION Real current(int i, Real, const StateView<Real, Mem>&) const {
    return i_c(i);
  }
  template <class Math>
  void chunk_currents(int b, int len, const StateView<Real, Mem>&, Real* out) const {
    for (int k = 0; k < len; ++k) out[k] = i_c(b + k);
  }
};

// One team thread (vector_length lanes) per cell: coalesced row reads, lane reduction.
template <class Exec, class Real>
struct CsrCurrentsFunctor {
  using Mem = typename Exec::memory_space;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  CsrGapJunctions<Real, Mem> gap;
  StateView<Real, Mem> cur;
  Kokkos::View<Real*, Mem> out;
  int cells = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int i = team.league_rank() * team.team_size() + team.team_rank();
    if (i >= cells) return;
    const Real vd = cur(V_DEND, i);
    const std::int64_t b = gap.offsets(i), e = gap.offsets(i + 1);
    Real ic = 0;
    if (gap.g.extent(0) == 0) {
      const Real g = gap.g_const;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, b, e),
          [&](const std::int64_t k, Real& sum) { sum += gap_term<GapKernelMath>(g, vd - cur(V_DEND, gap.sources(k))); },
          ic);
    } else {
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, b, e),
          [&](const std::int64_t k, Real& sum) {
            sum += gap_term<GapKernelMath>(gap.g(k), vd - cur(V_DEND, gap.sources(k)));
          },
          ic);
    }
    Kokkos::single(Kokkos::PerThread(team), [&]() { out(i) = ic; });
  }
};

// out(i) = gap current of cell i, one vector-lane group per cell: 4 cells of 32 lanes per team on GPUs, one cell of
// one lane on the host.
template <class Exec, class Real, class Mem = typename Exec::memory_space>
void compute_split_gap_currents(const CsrGapJunctions<Real, Mem>& gap, const StateView<Real, Mem>& cur,
                                const Kokkos::View<Real*, Mem>& out, int cells, bool gpu) {
  const int per_team = gpu ? GpuLaunch::split_cells_per_team : HostLaunch::split_cells_per_team;
  const int lanes = gpu ? GpuLaunch::split_lanes : HostLaunch::split_lanes;
  Kokkos::parallel_for("kbrain::olive::gap_currents",
                       Kokkos::TeamPolicy<Exec>((cells + per_team - 1) / per_team, per_team, lanes),
                       CsrCurrentsFunctor<Exec, Real>{gap, cur, out, cells});
}

}  // namespace kbrain::olive
