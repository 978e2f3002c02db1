#pragma once
// Two forward-Euler steps n -> n+2 of a 2-D mesh IO network in one kernel (temporal blocking). The one-step kernel
// reads and writes every state variable of every cell once per step; this one does so once per two steps, at the
// cost of stepping a one-cell ring around each tile twice (redundantly, bit for bit the same way).
//
// One team per tile of kTileCols x rows cells (team thread (y, x) owns mesh cell (r0 + y, c0 + x)):
//   1. stage V_d(n) of the tile and of the ring around it in team scratch;
//   2. every thread advances its cell to n+1 with IoStepFunctor's compartments, reading step n from the state View
//      and keeping step n+1 in registers (GPU) or team scratch (host), and stages V_d(n+1);
//   3. the inner cells (all but the tile's outermost rows and columns) advance to n+2 from there and write `next`.
// Inner cells of neighbouring tiles do not overlap and cover the mesh, so each cell is written (and reports its
// spikes) exactly once. The gap currents are MeshGapJunctions::current_at over the staged values: the same terms in
// the same order as the one-step kernel, so two steps here equal two one-step launches bit for bit
// (tests/test_io_mesh_pair.cpp). Only a uniform applied current per step is supported (no per-cell current).
#include <cstddef>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/olive/gap/io_gap_junctions.hpp"
#include "models/olive/cell/io_math.hpp"
#include "models/olive/cell/io_state.hpp"
#include "models/olive/cell/io_step.hpp"

namespace kbrain::olive {

template <class Exec, class Real>
struct IoMeshPairFunctor {
  using Mem = typename Exec::memory_space;
  using Mesh = MeshGapJunctions<Real, Mem>;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Scratch = Kokkos::View<Real*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using CellScratch =
      Kokkos::View<CellVariables<Real>*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  // Host backends run a team with one thread over all its cells and keep step n+1 in scratch; GPU backends run
  // one thread per cell and keep it in registers.
  static constexpr bool kHost = Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible;
  static constexpr int kTileCols = 32;                 // a warp per tile row
  static constexpr int kInnerCols = kTileCols - 2;     // cells per tile row that advance to n+2
  static constexpr int kStageCols = kTileCols + 2;     // staged V_d(n) row: the tile row and one cell each side

  IoStepFunctor<Exec, Real, Mesh> f;  // state, constants, g_CaL, spike sink, the first step's applied current
  Real i_app_second = 0;              // the second step's applied current
  int tile_rows = 8;                  // rows of a tile (>= 3); inner rows = tile_rows - 2
  int tiles_across = 0;               // tiles per mesh row

  static int tiles_across_of(int cols) { return (cols + kInnerCols - 1) / kInnerCols; }
  static int tiles_down_of(int rows, int tile_rows) { return (rows + tile_rows - 3) / (tile_rows - 2); }
  static std::size_t scratch_bytes(int tile_rows) {
    const int cells = tile_rows * kTileCols;
    std::size_t b = Scratch::shmem_size((tile_rows + 2) * kStageCols) + Scratch::shmem_size(cells);
    if (kHost) b += CellScratch::shmem_size(cells);
    return b;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Mesh& mesh = f.gap;
    const int ty = team.league_rank() / tiles_across, tx = team.league_rank() - ty * tiles_across;
    const int r0 = ty * (tile_rows - 2) - 1, c0 = tx * kInnerCols - 1;  // mesh cell of tile thread (0, 0)
    const int cells = tile_rows * kTileCols;
    Scratch vd_n(team.team_scratch(0), (tile_rows + 2) * kStageCols);  // V_d(n): rows r0-1 .., columns c0-1 ..
    Scratch vd_n1(team.team_scratch(0), cells);                        // V_d(n+1) of the tile
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, (tile_rows + 2) * kStageCols), [&](const int k) {
      const int r = r0 - 1 + k / kStageCols, c = c0 - 1 + k % kStageCols;
      vd_n(k) = r >= 0 && r < mesh.rows && c >= 0 && c < mesh.cols ? f.cur(V_DEND, r * mesh.cols + c) : Real(0);
    });
    team.team_barrier();
    if constexpr (kHost) {
      CellScratch mid(team.team_scratch(0), cells);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, cells),
                           [&](const int k) { first_step(k, r0, c0, vd_n, vd_n1, mid(k)); });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, cells),
                           [&](const int k) { second_step(k, r0, c0, vd_n1, mid(k)); });
    } else {
      const int k = team.team_rank();  // team size == cells
      CellVariables<Real> mid;
      first_step(k, r0, c0, vd_n, vd_n1, mid);
      team.team_barrier();
      second_step(k, r0, c0, vd_n1, mid);
    }
  }

  // Tile cell k to step n+1: state from `cur`, result to `mid` (and its V_d to vd_n1).
  KOKKOS_FORCEINLINE_FUNCTION void first_step(const int k, const int r0, const int c0, const Scratch& vd_n,
                                              const Scratch& vd_n1, const CellVariables<Real>& mid) const {
    const Mesh& mesh = f.gap;
    const int y = k / kTileCols, x = k - y * kTileCols, r = r0 + y, c = c0 + x;
    if (r < 0 || r >= mesh.rows || c < 0 || c >= mesh.cols) return;
    const int i = r * mesh.cols + c;
    const int own = (y + 1) * kStageCols + x + 1;  // this cell in vd_n
    const Real vd = vd_n(own), vs = f.cur(V_SOMA, i), va = f.cur(V_AXON, i);
    const Real i_c = mesh.template current_at<NativeMath>(
        r, c, vd, [&](const int rr, const int cc) { return vd_n(own + (rr - r) * kStageCols + (cc - c)); });
    const Real va_new = f.template update_cell<NativeMath>(f.cur, mid, i, vd, vs, va, i_c, f.i_app);
    vd_n1(k) = mid(V_DEND, i);
    if (inner(y, x) && f.crossed(va, va_new)) f.record_spike_at(i, f.step);
  }

  // Inner tile cell k to step n+2: state from `mid`, result to `next`.
  KOKKOS_FORCEINLINE_FUNCTION void second_step(const int k, const int r0, const int c0, const Scratch& vd_n1,
                                               const CellVariables<Real>& mid) const {
    const Mesh& mesh = f.gap;
    const int y = k / kTileCols, x = k - y * kTileCols, r = r0 + y, c = c0 + x;
    if (!inner(y, x) || r >= mesh.rows || c >= mesh.cols) return;
    const int i = r * mesh.cols + c;
    const Real vd = mid(V_DEND, i), vs = mid(V_SOMA, i), va = mid(V_AXON, i);
    const Real i_c = mesh.template current_at<NativeMath>(
        r, c, vd, [&](const int rr, const int cc) { return vd_n1(k + (rr - r) * kTileCols + (cc - c)); });
    const Real va_new = f.template update_cell<NativeMath>(mid, f.next, i, vd, vs, va, i_c, i_app_second);
    if (f.crossed(va, va_new)) f.record_spike_at(i, f.step + 1);
  }

  KOKKOS_FORCEINLINE_FUNCTION bool inner(const int y, const int x) const {
    return y >= 1 && y <= tile_rows - 2 && x >= 1 && x <= kInnerCols;
  }
};

// Steps n -> n+2 with the functor of step n+1 (make_step_functor: cur = step n, next receives n+2; no per-cell
// applied current) and the applied current of step n+2. Bounds: the GPU launch bounds (default: the compiler's
// choice; docs/journal/2026-11-22-issue3-pass6.md has the sweep).
template <class Exec, class Real, class Mem, class Bounds = Kokkos::LaunchBounds<>>
void launch_mesh_pair(const IoStepFunctor<Exec, Real, MeshGapJunctions<Real, Mem>>& first, double i_app_second,
                      int tile_rows) {
  using Functor = IoMeshPairFunctor<Exec, Real>;
  Functor p;
  p.f = first;
  p.i_app_second = Real(i_app_second);
  p.tile_rows = tile_rows;
  p.tiles_across = Functor::tiles_across_of(first.gap.cols);
  const int league = p.tiles_across * Functor::tiles_down_of(first.gap.rows, tile_rows);
  if (league == 0) return;
  const int team = Functor::kHost ? 1 : tile_rows * Functor::kTileCols;
  // The double functor is over 512 bytes: a light-weight launch passes it as a kernel argument (Kokkos' default
  // above 512 bytes copies it to constant memory and synchronises with the host at every launch).
  const auto policy = Kokkos::Experimental::require(
      Kokkos::TeamPolicy<Exec, Bounds>(league, team).set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes(tile_rows))),
      Kokkos::Experimental::WorkItemProperty::HintLightWeight);
  Kokkos::parallel_for("kbrain::olive::mesh_pair", policy, p);
}

}  // namespace kbrain::olive
