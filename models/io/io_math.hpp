#pragma once
// How the IO kernels evaluate exp and divide (the Math policy of io_step.hpp and io_gap_junctions.hpp).
#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/common/device_math.hpp"
#include "models/common/simd_exp.hpp"

namespace kbrain::io {

// NativeMath: the backend's own (libm and `/` on the host; on CUDA device_exp and device_div of
// models/common/device_math.hpp). VectorMath: the branch-free polynomial with which host `omp simd` loops vectorise
// (with `/`).
struct NativeMath {
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real exp(Real x) {
    return device_exp(x);
  }
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real div(Real a, Real b) {
    return device_div(a, b);
  }
};
struct VectorMath {
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real exp(Real x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return kx::exp(x);  // never called on a device; keeps device compilation of host-only paths valid
#else
    return simd_exp(x);
#endif
  }
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real div(Real a, Real b) {
    return a / b;
  }
};

// Math for the gap-current kernels of their own (split and tiled: io_gap_split.hpp, io_gap_tiled.hpp), whose
// exponent is -dV^2/100, never positive. On CUDA in double it caps the exponent at about -70 and takes the
// exponential without range test (device_exp_in_range). The cap changes no result: exp(-70) = 4e-31, so
// 0.8 g exp(...) + 0.2 g rounds to 0.2 g for every exponent at or below -70, in float and double alike. It is an
// integer min on the high word (one IMNMX, off the FP64 pipe): a non-positive double orders like the reverse of its
// high word read as a signed integer. NaN becomes about -70 and the term stays NaN (it is multiplied by dV).
// The fused step kernel keeps NativeMath: there the same change made ptxas spill at the step's 40-register bound.
struct GapKernelMath : NativeMath {
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real exp(Real x) {
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(Real) == 8) {
      constexpr int kHighMinus70 = static_cast<int>(0xC0518000u);  // high word of -70.0
      const double xd = static_cast<double>(x);
      const int hi = __double2hiint(xd);
      return static_cast<Real>(
          device_exp_in_range(__hiloint2double(hi < kHighMinus70 ? hi : kHighMinus70, __double2loint(xd))));
    }
#endif
    return NativeMath::exp(x);
  }
};

}  // namespace kbrain::io
