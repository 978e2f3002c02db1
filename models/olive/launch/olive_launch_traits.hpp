#pragma once
// Launch constants of the inferior-olive kernels, per backend kind (in the spirit of Cabana's PerformanceTraits):
// block sizes, minimum blocks per SM, team shapes and host chunk sizes live here and nowhere else. The numbers
// behind each choice are in docs/performance.md; bench/README.md lists the variants that were measured against them.
#include <Kokkos_Core.hpp>

#include "backends/optional_traits.hpp"

namespace kbrain::olive {

template <bool Gpu>
struct OliveLaunchTraits;

// GPU backends (one thread per cell, or teams of warps).
template <>
struct OliveLaunchTraits<true> {
  // The one-cell-per-thread step (mesh and precomputed gap currents): at most 42 registers per thread, which raises
  // the double mesh step's occupancy and costs float nothing.
  static constexpr int step_threads = 256;
  static constexpr int step_min_blocks = 6;
  // The fused CSR step sums its row inside the step: more registers than the mesh step. 4 blocks per SM by default;
  // in double, whose junction terms take the gap kernels' exponential, 2 blocks (up to 128 registers) from
  // csr_two_blocks_min_degree junctions per cell, a threshold between the measured densities 10 (where 2 blocks
  // lose) and 100 (where they win).
  static constexpr int csr_step_min_blocks = 4;
  static constexpr int csr_step_min_blocks_dense_double = 2;
  static constexpr double csr_two_blocks_min_degree = 50;
  // Two steps per launch on the mesh: tiles of pair_tile_rows rows of 32 cells, at most 64 registers.
  static constexpr int pair_tile_rows = 8;
  static constexpr int pair_threads = 256;
  static constexpr int pair_min_blocks = 4;
  // Split gap currents: cells per team and vector lanes per cell.
  static constexpr int split_cells_per_team = 4;
  static constexpr int split_lanes = 32;
  // Tiled gap currents: warps per team (one team per brick) and lanes per cell; teams per SM as many as the team
  // scratch allows with the default cuts, so that the unrolled lane loop's registers do not lower the occupancy.
  static constexpr int tiled_warps = 8;
  static constexpr int tiled_lanes = 32;
  static constexpr int tiled_threads = 256;
  static constexpr int tiled_min_teams_float = 6;
  static constexpr int tiled_min_teams_double = 5;
  // Team scratch for the staged cube: at most 40 KiB (Kokkos 3.4's CUDA limit).
  static constexpr long tiled_scratch_max = 40 * 1024;
};

// Host backends (Serial, OpenMP): chunks of cells with SIMD compartment loops; teams of one thread and one lane.
template <>
struct OliveLaunchTraits<false> {
  static constexpr int host_chunk = 64;  // cells per index of the chunked step: each compartment is one `omp simd` loop
  static constexpr int split_cells_per_team = 1;
  static constexpr int split_lanes = 1;
  static constexpr int tiled_warps = 1;
  static constexpr int tiled_lanes = 1;
  static constexpr long tiled_scratch_max = 40 * 1024;
};

using GpuLaunch = OliveLaunchTraits<true>;
using HostLaunch = OliveLaunchTraits<false>;
template <class Backend>
using LaunchTraitsOf = OliveLaunchTraits<Backend::is_gpu>;

// GPU launch bounds of the one-cell-per-thread step.
using StepLaunchBounds = Kokkos::LaunchBounds<GpuLaunch::step_threads, GpuLaunch::step_min_blocks>;

// Whether a backend declares a chained launch: kbrain::kHasChainedLaunch (backends/optional_traits.hpp).
using kbrain::kHasChainedLaunch;

}  // namespace kbrain::olive
