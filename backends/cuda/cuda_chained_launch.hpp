#pragma once
// Programmatic dependent launch (Hopper and later) for kernels launched back to back that depend on each other's
// whole output, such as one step per launch: each launch's blocks wait in cudaGridDependencySynchronize until the
// previous grid has finished and its writes are visible, and then let the next launch be scheduled, so that its
// launch latency and block ramp overlap this grid's work. Results are those of ordinary launches, bit for bit (test
// io_chained_launch); the measurements are in docs/journal/2026-11-22-issue3-pass8.md and docs/performance.md.
// A functor may split its work at the wait (backends/launch_prologue.hpp): its prologue runs before the wait,
// overlapping the previous grid, and may read only what that grid does not write. A chained grid lets the next one
// start only after its own wait, so the grid two launches back has finished by then (a small network's neuron kernel
// computes its gates while the previous step's delivery runs: docs/performance.md, "Small spiking networks").
// An optional backend trait (CudaBackend::chained_launch): models launch through it where a backend declares one.
// It launches a plain kernel on the stream of Kokkos' default Cuda instance (or of the instance given), so it is
// ordered with every Kokkos operation there; the functor is passed as the kernel's parameter (at most 4 KiB) and
// must be callable as f(i) on the device. Launches recorded into a CUDA graph keep their programmatic edges.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

#include "backends/launch_prologue.hpp"

namespace kbrain {

namespace detail {
// Wait until the previous launch has finished and its writes are visible, then let the next launch be scheduled.
__device__ inline void wait_then_release_next() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// The index loop of Kokkos 3.4's RangePolicy kernel (64-bit indices, blocks of 1 x MaxThreads threads, a grid-stride
// loop), so that the functor compiles as under Kokkos::parallel_for: a one-index-per-thread form measured 2 % slower
// for the IO step (docs/journal/2026-11-22-issue3-pass8.md). A functor with a prologue runs one index per thread
// (the launch's grid covers its range).
template <int MaxThreads, int MinBlocks, class F>
__global__ void __launch_bounds__(MaxThreads, MinBlocks)
    chained_range_kernel(const F f, const std::int64_t begin, const std::int64_t end) {
  const std::int64_t first = begin + threadIdx.y + std::int64_t(blockDim.y) * blockIdx.x;
  if constexpr (has_prologue<F>) {
    const PrologueOf<F> early = first < end ? f.prologue(static_cast<int>(first)) : PrologueOf<F>{};
    wait_then_release_next();
    if (first < end) f.after_wait(static_cast<int>(first), early);
  } else {
    wait_then_release_next();
    const std::int64_t stride = std::int64_t(blockDim.y) * gridDim.x;
    for (std::int64_t i = first; i < end; i = i < end - stride ? i + stride : end) f(static_cast<int>(i));
  }
}

// A launch configuration on `stream` that lets the kernel be scheduled while the stream's previous kernel drains
// (programmatic stream serialization); the kernel orders itself with cudaGridDependencySynchronize. Not copyable:
// config points into attribute.
struct ProgrammaticLaunch {
  cudaLaunchAttribute attribute[1];
  cudaLaunchConfig_t config = {};
  ProgrammaticLaunch(dim3 grid, dim3 block, cudaStream_t stream) {
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
    config.gridDim = grid;
    config.blockDim = block;
    config.stream = stream;
    config.attrs = attribute;
    config.numAttrs = 1;
  }
  ProgrammaticLaunch(const ProgrammaticLaunch&) = delete;
  ProgrammaticLaunch& operator=(const ProgrammaticLaunch&) = delete;
};
}  // namespace detail

struct CudaChainedLaunch {
  // Whether the device Kokkos uses supports it (compute capability 9.0 or later).
  static bool available() {
    static const bool yes = [] {
      int major = 0;
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, Kokkos::Cuda().cuda_device());
      return major >= 9;
    }();
    return yes;
  }

  // Threads per block for n indices: MaxThreads, or for a range too small to give every SM a full block, whole
  // warps enough to spread it over every SM. A small network's step is bound by the latency of each thread's
  // arithmetic, not by throughput: a few full blocks would queue their warps on a few SMs' arithmetic units
  // (double precision above all) while the other SMs idle. The index each thread computes does not change.
  template <int MaxThreads>
  static int block_threads(const int n) {
    static const int sms = [] {
      int count = 1;
      cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, Kokkos::Cuda().cuda_device());
      return count > 0 ? count : 1;
    }();
    const int per_sm = (n + sms - 1) / sms;
    const int warps = (per_sm + 31) / 32;
    return warps * 32 < MaxThreads ? (warps > 0 ? warps * 32 : 32) : MaxThreads;
  }

  // f(i) for i in [begin, end), one index per thread, blocks of MaxThreads threads (fewer for a small range:
  // block_threads), with the launch bounds of a RangePolicy<Cuda, LaunchBounds<MaxThreads, MinBlocks>>.
  // Asynchronous, like Kokkos::parallel_for.
  template <int MaxThreads, int MinBlocks, class F>
  static void parallel_for(const F& f, const int begin, const int end) {
    parallel_for<MaxThreads, MinBlocks>(f, begin, end, Kokkos::Cuda());
  }

  // The same on the stream of an execution-space instance (a step being recorded: backends/cuda/cuda_step_graph.hpp).
  template <int MaxThreads, int MinBlocks, class F>
  static void parallel_for(const F& f, const int begin, const int end, const Kokkos::Cuda& exec) {
    static_assert(sizeof(F) <= 4096, "the functor is passed as a kernel parameter (4 KiB at most)");
    if (end <= begin) return;
    auto* kernel = detail::chained_range_kernel<MaxThreads, MinBlocks, F>;
    static const bool configured = [&] {  // no shared memory: the largest L1, as Kokkos sets for such kernels
      return cudaFuncSetCacheConfig(kernel, cudaFuncCachePreferL1) == cudaSuccess;
    }();
    (void)configured;
    const int threads = block_threads<MaxThreads>(end - begin);
    const detail::ProgrammaticLaunch launch(dim3(static_cast<unsigned>((end - begin + threads - 1) / threads)),
                                            dim3(1, threads), exec.cuda_stream());
    const cudaError_t e = cudaLaunchKernelEx(&launch.config, kernel, f, std::int64_t(begin), std::int64_t(end));
    if (e != cudaSuccess) throw std::runtime_error(std::string("chained kernel launch failed: ") + cudaGetErrorString(e));
  }
};

}  // namespace kbrain
