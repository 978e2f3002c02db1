#pragma once
// How the IO step kernels are launched on GPU backends: their launch bounds, and whether a backend offers a chained
// launch (IoSimulation and IoMpiSimulation use these).
#include <type_traits>

#include <Kokkos_Core.hpp>

namespace kbrain::io {

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
// The fused CSR step (one thread per cell sums its row of gathers) with 4 blocks per SM, i.e. up to 64 registers:
// on the H200 at 1M cells it is 6-29 % faster in double and 1-17 % in float than with the mesh step's 6 blocks
// (40 registers), densities 10-1000; 2 and 3 blocks per SM measured the same as 4 (docs/performance.md).
inline constexpr int kCsrStepMinBlocks = 4;
inline constexpr int kStepThreads = KBRAIN_IO_MAX_THREADS > 0 ? KBRAIN_IO_MAX_THREADS : 256;
using CsrStepLaunchBounds = Kokkos::LaunchBounds<kStepThreads, kCsrStepMinBlocks>;

// Whether a backend declares a chained launch (backends/cuda/cuda_chained_launch.hpp): launches of one index per
// thread that overlap the previous launch's tail. Backends without one launch with Kokkos::parallel_for.
template <class Backend, class = void>
struct HasChainedLaunch : std::false_type {};
template <class Backend>
struct HasChainedLaunch<Backend, std::void_t<typename Backend::chained_launch>> : std::true_type {};

}  // namespace kbrain::io
