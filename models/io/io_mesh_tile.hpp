#pragma once
// One forward-Euler step of a 2-D mesh IO network with each gap junction's exponential computed once for both of
// its cells. The one-step kernel evaluates gap_factor (io_gap_junctions.hpp: 0.8 g exp(-dV^2/100) + 0.2 g) eight
// times per cell, once from each end of every junction; the factor is even in dV, so one evaluation serves both
// cells. In double the exponentials are a large part of a step that is limited by FP64 instruction issue, not by
// memory (docs/performance.md).
//
// One team per tile of kCols x TileRows cells, three phases:
//   1. stage V_d(n) of the tile and of the ring around it in team scratch;
//   2. the factors of every junction that touches a tile cell, each junction once, spread over the team's threads
//      (cell p stores the factors of its forward junctions: east, south-west, south and south-east);
//   3. each tile cell sums its eight terms factor * dV with MeshGapJunctions::current_with (the one-step kernel's
//      order and rounding) and advances with IoStepFunctor::update_cell.
// The result equals the one-step kernel's bit for bit (tests/test_io_mesh_tile.cpp).
#include <cstddef>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/io/io_gap_junctions.hpp"
#include "models/io/io_math.hpp"
#include "models/io/io_state.hpp"
#include "models/io/io_step.hpp"

namespace kbrain::io {

template <class Exec, class Real, int TileRows = 8>
struct IoMeshTileFunctor {
  using Mem = typename Exec::memory_space;
  using Mesh = MeshGapJunctions<Real, Mem>;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Scratch = Kokkos::View<Real*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr bool kHost = Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible;
  static constexpr int kCols = 32;                           // a warp per tile row
  static constexpr int kRows = TileRows;
  static constexpr int kStageCols = kCols + 2;               // staged rows: the tile row and one cell each side
  static constexpr int kStaged = (kRows + 2) * kStageCols;   // V_d(n): tile rows -1 .. kRows, columns -1 .. kCols
  static constexpr int kFactorCells = (kRows + 1) * kStageCols;  // junction owners: rows -1 .. kRows-1
  static constexpr int kTeam = kRows * kCols;                // GPU team size: one thread per tile cell

  IoStepFunctor<Exec, Real, Mesh> f;
  int tiles_across = 0;

  static int tiles_across_of(int cols) { return (cols + kCols - 1) / kCols; }
  static int tiles_down_of(int rows) { return (rows + kRows - 1) / kRows; }
  static std::size_t scratch_bytes() { return Scratch::shmem_size(kStaged) + Scratch::shmem_size(4 * kFactorCells); }

  // Forward junction d of a cell: east (0, +1), south-west (+1, -1), south (+1, 0), south-east (+1, +1).
  KOKKOS_FORCEINLINE_FUNCTION static int forward_row(const int d) { return d == 0 ? 0 : 1; }
  KOKKOS_FORCEINLINE_FUNCTION static int forward_col(const int d) { return d == 0 ? 1 : d - 2; }
  KOKKOS_FORCEINLINE_FUNCTION static int forward_index(const int dr, const int dc) { return dr == 0 ? 0 : 2 + dc; }
  KOKKOS_FORCEINLINE_FUNCTION static bool in_tile(const int y, const int x) {
    return y >= 0 && y < kRows && x >= 0 && x < kCols;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Mesh& mesh = f.gap;
    const int ty = team.league_rank() / tiles_across, tx = team.league_rank() - ty * tiles_across;
    const int r0 = ty * kRows, c0 = tx * kCols;  // mesh cell of tile cell (0, 0)
    Scratch vd(team.team_scratch(0), kStaged);
    Scratch factor(team.team_scratch(0), 4 * kFactorCells);
    const auto in_mesh = [&](const int y, const int x) {
      return r0 + y >= 0 && r0 + y < mesh.rows && c0 + x >= 0 && c0 + x < mesh.cols;
    };
    const auto staged = [](const int y, const int x) { return (y + 1) * kStageCols + x + 1; };

    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kStaged), [&](const int k) {
      const int y = k / kStageCols - 1, x = k % kStageCols - 1;
      vd(k) = in_mesh(y, x) ? f.cur(V_DEND, (r0 + y) * mesh.cols + c0 + x) : Real(0);
    });
    team.team_barrier();

    // Junction (cell p, forward neighbour q) is needed when p or q is a tile cell, and exists when both are in
    // the mesh; its factor goes to factor(d * kFactorCells + p's staged index within rows -1 .. kRows-1).
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 4 * kFactorCells), [&](const int w) {
      const int d = w / kFactorCells, p = w - d * kFactorCells;
      const int y = p / kStageCols - 1, x = p % kStageCols - 1;
      const int qy = y + forward_row(d), qx = x + forward_col(d);
      if ((in_tile(y, x) || in_tile(qy, qx)) && in_mesh(y, x) && in_mesh(qy, qx))
        factor(w) = gap_factor<GapKernelMath>(mesh.g08, mesh.g02, vd(staged(y, x)) - vd(staged(qy, qx)));
    });
    team.team_barrier();

    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kTeam), [&](const int k) {
      const int y = k / kCols, x = k - y * kCols, r = r0 + y, c = c0 + x;
      if (r >= mesh.rows || c >= mesh.cols) return;
      const int i = r * mesh.cols + c;
      const Real v = vd(staged(y, x));
      const Real i_c = mesh.current_with(
          r, c, v, [&](const int rr, const int cc) { return vd(staged(rr - r0, cc - c0)); },
          [&](const int dr, const int dc, Real) {
            return dr == 1 || (dr == 0 && dc == 1)  // a forward junction of this cell, else one of the neighbour's
                       ? factor(forward_index(dr, dc) * kFactorCells + staged(y, x))
                       : factor(forward_index(-dr, -dc) * kFactorCells + staged(y + dr, x + dc));
          });
      f.update_cell(i, v, f.cur(V_SOMA, i), f.cur(V_AXON, i), i_c);
    });
  }
};

// One step of a mesh network: `step` from make_step_functor (its gap must be the mesh). Bounds: the GPU launch
// bounds (their first value must be at least TileRows * 32).
template <class Exec, class Real, class Mem, int TileRows = 8, class Bounds = Kokkos::LaunchBounds<TileRows * 32, 1536 / (TileRows * 32)>>
void launch_mesh_tile(const IoStepFunctor<Exec, Real, MeshGapJunctions<Real, Mem>>& step) {
  using Functor = IoMeshTileFunctor<Exec, Real, TileRows>;
  Functor t;
  t.f = step;
  t.tiles_across = Functor::tiles_across_of(step.gap.cols);
  const int league = t.tiles_across * Functor::tiles_down_of(step.gap.rows);
  if (league == 0) return;
  // A light-weight launch passes the functor as a kernel argument even above 512 bytes (Kokkos' default there
  // copies it to constant memory and synchronises with the host at every launch).
  const auto policy = Kokkos::Experimental::require(
      Kokkos::TeamPolicy<Exec, Bounds>(league, Functor::kHost ? 1 : Functor::kTeam)
          .set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes())),
      Kokkos::Experimental::WorkItemProperty::HintLightWeight);
  Kokkos::parallel_for("kbrain::io::mesh_tile", policy, t);
}

}  // namespace kbrain::io
