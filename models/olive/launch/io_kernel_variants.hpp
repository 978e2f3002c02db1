#pragma once
// Compile-time kernel variants of IoSimulation. The product runs OliveKernels<Real>; benchmarks and tests
// instantiate others through these template parameters (bench/README.md says what each variant measured).
//   Tiled     how the tiled gap kernel evaluates its junctions (TiledKernel, io_tiled_kernel.hpp)
//   HostSimd  host backends: the chunked step with SIMD compartment loops (true), or the plain one-cell-per-index
//             kernel with libm exp, the "straightforward scalar" baseline (false). No effect on GPU backends.
#include "models/olive/gap/io_tiled_kernel.hpp"

namespace kbrain::olive {

template <class Tiled, bool HostSimd = true>
struct KernelVariants {
  using tiled = Tiled;
  static constexpr bool host_simd = HostSimd;
};

template <class Real>
using OliveKernels = KernelVariants<DefaultTiledKernel<Real>, true>;

// The scalar host baseline (and the plain one-cell kernel the step-pair kernel's Math matches on the host).
template <class Real>
using ScalarHostKernels = KernelVariants<DefaultTiledKernel<Real>, false>;

}  // namespace kbrain::olive
