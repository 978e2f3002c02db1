#pragma once
// How the IO kernels evaluate exp and divide (the Math policy of io_step.hpp and io_gap_junctions.hpp).
#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/common/device_math.hpp"
#include "models/common/simd_exp.hpp"

namespace kbrain::olive {

// NativeMath: the backend's own (libm and `/` on the host; on CUDA device_exp and device_div of
// models/common/device_math.hpp). VectorMath: the branch-free polynomial with which host `omp simd` loops vectorise
// (with `/`).
// gap_exp(x): exp(x) for the gap term's exponent x = -dV^2/100 <= 0 (gap_term_scaled). At or below -70, 4 exp(x) is
// under half an ulp, so 0.8 g exp(x) + 0.2 g rounds to 0.2 g in float and double alike: capping x at -70 changes no
// result. Host code caps it (capped_gap_exponent): without the cap, 0.8 g exp(x) goes subnormal once simd_exp clamps
// its argument (float: dV beyond ~93 mV), and x86 cores take microcode assists on subnormals (the Serial float mesh
// step ran several times slower, docs/journal/2026-11-22-issue3-pass5.md). On CUDA, NativeMath does not cap: GPUs
// handle subnormals at full speed, and the fused step kernel is tuned to its registers. GapKernelMath caps with one integer min there.
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION Real capped_gap_exponent(Real x) {
  return x < Real(-70) ? Real(-70) : x;
}

struct NativeMath {
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real exp(Real x) {
    return device_exp(x);
  }
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real gap_exp(Real x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return exp(x);
#else
    return exp(capped_gap_exponent(x));
#endif
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
  KOKKOS_FORCEINLINE_FUNCTION static Real gap_exp(Real x) {
    return exp(capped_gap_exponent(x));
  }
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real div(Real a, Real b) {
    return a / b;
  }
};

// Math for the gap-current kernels of their own (split and tiled: io_gap_split.hpp, io_gap_tiled.hpp). On CUDA in
// double, gap_exp caps the exponent at about -70 (see gap_exp above: no result changes) with an integer min on the
// high word (one IMNMX, off the FP64 pipe; a non-positive double orders like the reverse of its high word read as a
// signed integer; NaN becomes about -70 and the term stays NaN, as it is also multiplied by dV), then takes the
// exponential without range test: device_exp_in_range (TableFree = false) or device_exp_poly_in_range (true,
// without the table's load). The fused step kernel keeps NativeMath: there the same change made ptxas spill at
// the step's 40-register bound.
template <bool TableFree = false>
struct GapKernelMathOf : NativeMath {
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real gap_exp(Real x) {
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(Real) == 8) {
      constexpr int kHighMinus70 = static_cast<int>(0xC0518000u);  // high word of -70.0
      const double xd = static_cast<double>(x);
      const int hi = __double2hiint(xd);
      const double capped = __hiloint2double(hi < kHighMinus70 ? hi : kHighMinus70, __double2loint(xd));
      return static_cast<Real>(TableFree ? device_exp_poly_in_range(capped) : device_exp_in_range(capped));
    }
#endif
    return NativeMath::gap_exp(x);
  }
};
using GapKernelMath = GapKernelMathOf<false>;
using GapKernelTableFreeMath = GapKernelMathOf<true>;

}  // namespace kbrain::olive
