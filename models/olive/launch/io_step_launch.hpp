#pragma once
// How the IO step kernels are launched on GPU backends: their launch bounds, and whether a backend offers a chained
// launch (IoSimulation and IoMpiSimulation use these).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/detected.hpp"

namespace kbrain::olive {

// GPU launch bounds of the step kernel (max threads per block, min blocks per SM); 0, 0 = Kokkos' choice.
// Set at configure time with -DKBRAIN_IO_MAX_THREADS / -DKBRAIN_IO_MIN_BLOCKS (scripts/tune_launch_bounds.sh).
// Default 256, 6 (also models/CMakeLists.txt): at most 42 registers per thread, which takes the double mesh step
// from 48 registers to 39 (62.5 % to 75 % occupancy) and costs float nothing; docs/performance.md has the sweep.
#ifndef KBRAIN_IO_MAX_THREADS
#define KBRAIN_IO_MAX_THREADS 256
#endif
#ifndef KBRAIN_IO_MIN_BLOCKS
#define KBRAIN_IO_MIN_BLOCKS 6
#endif
using StepLaunchBounds = Kokkos::LaunchBounds<KBRAIN_IO_MAX_THREADS, KBRAIN_IO_MIN_BLOCKS>;
// The fused CSR step (one thread per cell sums its row of gathers) has launch bounds of its own: at least
// csr_step_min_blocks(...) blocks of kStepThreads per SM. Measured on an H200 (docs/performance.md):
//  - 4 blocks (up to 64 registers) against the mesh step's 6 (40 registers): 6-29 % faster in double and 1-17 % in
//    float at 1M cells, densities 10-1000 (eighth pass);
//  - in double, since its junction terms take the gap kernels' exponential (CsrGapJunctions::fused_step_math),
//    2 blocks (up to 128 registers) against 4: 3-25 % faster from 100 junctions per cell (uniform and Gaussian,
//    1M and 4M cells), 18 % slower at 10; float is the same with 2, 3 or 4 (ninth pass).
// So: 2 blocks in double from kCsrStepTwoBlocksMinDegree junctions per cell (a threshold between the measured 10
// and 100), otherwise 4.
inline constexpr int kCsrStepMinBlocks = 4;
inline constexpr double kCsrStepTwoBlocksMinDegree = 50;
inline constexpr int kStepThreads = KBRAIN_IO_MAX_THREADS > 0 ? KBRAIN_IO_MAX_THREADS : 256;
inline constexpr int csr_step_min_blocks(bool double_precision, double junctions_per_cell) {
  return double_precision && junctions_per_cell >= kCsrStepTwoBlocksMinDegree ? 2 : kCsrStepMinBlocks;
}

// Launches the fused CSR step f over cells [begin, end) with at least `min_blocks` (2, 3, 4 or 6) blocks per SM.
template <class Exec, class F>
void launch_csr_step(const F& f, std::int64_t begin, std::int64_t end, int min_blocks) {
  const auto run = [&](auto bounds) {
    using Bounds = decltype(bounds);
    Kokkos::parallel_for("kbrain::olive::step", Kokkos::RangePolicy<Exec, Bounds>(begin, end), f);
  };
  switch (min_blocks) {
    case 2: return run(Kokkos::LaunchBounds<kStepThreads, 2>{});
    case 3: return run(Kokkos::LaunchBounds<kStepThreads, 3>{});
    case 6: return run(Kokkos::LaunchBounds<kStepThreads, 6>{});
    default: return run(Kokkos::LaunchBounds<kStepThreads, kCsrStepMinBlocks>{});
  }
}

// Whether a backend declares a chained launch (backends/cuda/cuda_chained_launch.hpp): launches of one index per
// thread that overlap the previous launch's tail. Backends without one launch with Kokkos::parallel_for.
template <class Backend>
using ChainedLaunchOf = typename Backend::chained_launch;
template <class Backend>
inline constexpr bool kHasChainedLaunch = is_detected_v<ChainedLaunchOf, Backend>;

}  // namespace kbrain::olive
