#pragma once
// How the tiled gap kernel (io_gap_tiled.hpp) evaluates its junctions, as template parameters, and its launch.
// DefaultTiledKernel<Real> is the product's choice per precision (the fastest measured); benchmarks instantiate
// other TiledKernel types (bench/README.md). No effect on results beyond the exponential's rounding.
//  - Math: the gap term's exponential. In double the table-free one (GapKernelTableFreeMath): with several teams'
//    cubes in shared memory the SM's L1 keeps little room for data, which the streamed junction lists pass through,
//    so the 2^(j/64) table of GapKernelMath does not stay there. Float's exponential has no table.
//  - Branchy: each junction of a lane's group is evaluated in a branch of its own, taken where the row has it.
//    Otherwise all junctions of a group are evaluated without branches (a junction past the row's end has dV = +0
//    and adds exactly +0 while V_dend is finite): the compiler then interleaves the group's exponentials and loads
//    each constant once per group, but in double it needs more registers than the teams per SM leave, so double
//    takes the branch and float does not.
//  - MinTeams: the launch bound, teams of 256 threads per SM (OliveLaunchTraits).
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "models/olive/gap/io_gap_tiled.hpp"
#include "models/olive/launch/olive_launch_traits.hpp"

namespace kbrain::olive {

template <class Math, bool Branchy, int MinTeams>
struct TiledKernel {
  using math = Math;
  static constexpr bool branchy = Branchy;
  static constexpr int min_teams = MinTeams;
};

template <class Real>
using DefaultTiledKernel =
    std::conditional_t<sizeof(Real) == 8, TiledKernel<GapKernelTableFreeMath, true, GpuLaunch::tiled_min_teams_double>,
                       TiledKernel<GapKernelMath, false, GpuLaunch::tiled_min_teams_float>>;

// out(i) = gap current of cell i: one team per brick (GpuLaunch::tiled_warps warps of tiled_lanes lanes on GPUs, one
// thread on the host) with the brick's cube in team scratch.
template <class Exec, class Real, class Kernel = DefaultTiledKernel<Real>, class Mem = typename Exec::memory_space>
void compute_tiled_gap_currents(const TiledGapJunctions<Real, Mem>& gap, const StateView<Real, Mem>& cur,
                                const Kokkos::View<Real*, Mem>& out, bool gpu) {
  using Functor = TiledCurrentsFunctor<Exec, Real, typename Kernel::math, Kernel::branchy>;
  using Bounds = Kokkos::LaunchBounds<GpuLaunch::tiled_threads, Kernel::min_teams>;
  const int team = gpu ? GpuLaunch::tiled_warps : HostLaunch::tiled_warps;
  const int lanes = gpu ? GpuLaunch::tiled_lanes : HostLaunch::tiled_lanes;
  Kokkos::parallel_for("kbrain::olive::gap_currents_tiled",
                       Kokkos::TeamPolicy<Exec, Bounds>(gap.tiling.bricks(), team, lanes)
                           .set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes(gap.tiling))),
                       Functor{gap, cur, out});
}

}  // namespace kbrain::olive
