#pragma once
// exp and division for GPU kernels: NativeMath of the IO step (models/olive/cell/io_step.hpp). The double IO step is
// limited by instruction issue and latency, not by memory bandwidth (docs/journal/2026-11-22-issue3-pass4.md), so
// both trade the CUDA library's last half ulp for fewer instructions. Host code, and device code other than CUDA's, call kx::exp and
// divide.
//
// device_exp(double): x = (64 m + j) ln2/64 + r with |r| <= ln2/128, so exp(x) = 2^m * 2^(j/64) * e^r, with
// 2^(j/64) from a 64-entry table (512 bytes, served by L1) and e^r - 1 from a degree-5 Taylor polynomial
// (truncation < 4e-17 relative), added as s + s*(e^r - 1) in one fma. The library's exp is within 1 ulp; the test
// io_device_math checks this one to 1.5 ulp at 8e5 points on every backend. |x| > 708 (overflow, underflow) and
// NaN take the library's exp. device_exp(float) is the library's expf.
#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/common/exp_poly_constants.hpp"

namespace kbrain {

#if defined(__CUDACC__)
namespace detail {
// 2^(j/64) for j = 0 .. 63, correctly rounded (from 60-digit decimal arithmetic).
static __device__ const double kExp2Sixtyfourths[64] = {
    0x1.0000000000000p+0, 0x1.02c9a3e778061p+0, 0x1.059b0d3158574p+0, 0x1.0874518759bc8p+0,
    0x1.0b5586cf9890fp+0, 0x1.0e3ec32d3d1a2p+0, 0x1.11301d0125b51p+0, 0x1.1429aaea92de0p+0,
    0x1.172b83c7d517bp+0, 0x1.1a35beb6fcb75p+0, 0x1.1d4873168b9aap+0, 0x1.2063b88628cd6p+0,
    0x1.2387a6e756238p+0, 0x1.26b4565e27cddp+0, 0x1.29e9df51fdee1p+0, 0x1.2d285a6e4030bp+0,
    0x1.306fe0a31b715p+0, 0x1.33c08b26416ffp+0, 0x1.371a7373aa9cbp+0, 0x1.3a7db34e59ff7p+0,
    0x1.3dea64c123422p+0, 0x1.4160a21f72e2ap+0, 0x1.44e086061892dp+0, 0x1.486a2b5c13cd0p+0,
    0x1.4bfdad5362a27p+0, 0x1.4f9b2769d2ca7p+0, 0x1.5342b569d4f82p+0, 0x1.56f4736b527dap+0,
    0x1.5ab07dd485429p+0, 0x1.5e76f15ad2148p+0, 0x1.6247eb03a5585p+0, 0x1.6623882552225p+0,
    0x1.6a09e667f3bcdp+0, 0x1.6dfb23c651a2fp+0, 0x1.71f75e8ec5f74p+0, 0x1.75feb564267c9p+0,
    0x1.7a11473eb0187p+0, 0x1.7e2f336cf4e62p+0, 0x1.82589994cce13p+0, 0x1.868d99b4492edp+0,
    0x1.8ace5422aa0dbp+0, 0x1.8f1ae99157736p+0, 0x1.93737b0cdc5e5p+0, 0x1.97d829fde4e50p+0,
    0x1.9c49182a3f090p+0, 0x1.a0c667b5de565p+0, 0x1.a5503b23e255dp+0, 0x1.a9e6b5579fdbfp+0,
    0x1.ae89f995ad3adp+0, 0x1.b33a2b84f15fbp+0, 0x1.b7f76f2fb5e47p+0, 0x1.bcc1e904bc1d2p+0,
    0x1.c199bdd85529cp+0, 0x1.c67f12e57d14bp+0, 0x1.cb720dcef9069p+0, 0x1.d072d4a07897cp+0,
    0x1.d5818dcfba487p+0, 0x1.da9e603db3285p+0, 0x1.dfc97337b9b5fp+0, 0x1.e502ee78b3ff6p+0,
    0x1.ea4afa2a490dap+0, 0x1.efa1bee615a27p+0, 0x1.f50765b6e4540p+0, 0x1.fa7c1819e90d8p+0,
};
// The constants of device_exp. As literals that do not fit an instruction's 32-bit immediate, the compiler
// materialised each in two register moves per use (12 per exponential in the IO step's SASS). From constant memory
// it loads them with ULDC instead: fewer static instructions, no measured change in speed (docs/journal/2026-11-22-issue3-pass4.md).
enum ExpConstant { kInvLn2x64, kLn2x64Hi, kLn2x64Lo, kC5, kC4, kC3, kNumExpConstants };
static __constant__ double kExpConstants[kNumExpConstants] = {
    0x1.71547652b82fep+6,   // 64 / ln2
    0x1.62e42fee00000p-7,   // ln2 / 64, high part: n * hi is exact for |n| < 2^17
    0x1.a39ef35793c76p-39,  // ln2 / 64, low part
    1.0 / 120, 1.0 / 24, 1.0 / 6};
// The constants of device_exp_poly_in_range (models/common/exp_poly_constants.hpp), in constant memory.
enum PolyExpConstant { kInvLn2, kLn2Hi, kLn2Lo, kP2, kP3, kP4, kP5, kP6, kP7, kP8, kP9, kP10, kNumPolyExpConstants };
static __constant__ double kPolyExpConstants[kNumPolyExpConstants] = {
    exp_poly::kInvLn2, exp_poly::kLn2Hi, exp_poly::kLn2Lo, exp_poly::kC[0], exp_poly::kC[1], exp_poly::kC[2],
    exp_poly::kC[3],   exp_poly::kC[4],  exp_poly::kC[5],  exp_poly::kC[6], exp_poly::kC[7], exp_poly::kC[8]};
// x = n * step + r with n an integer and |r| <= step / 2, step = step_hi + step_lo (n * step_hi exact). t holds n
// in its low word: t = 1.5 * 2^52 + n, a shift whose addition rounds to an integer (a 32-bit immediate).
struct ReducedExponent {
  double t, r;
};
__device__ __forceinline__ ReducedExponent reduce_exponent(double x, double inv_step, double step_hi, double step_lo) {
  const double shift = 0x1.8p52;
  const double t = fma(x, inv_step, shift);
  const double n = t - shift;
  return {t, fma(n, -step_lo, fma(n, -step_hi, x))};
}
// Out of line: the rare call would otherwise inline the library's code at every exponential of a kernel.
static __device__ __noinline__ double library_exp(double x) { return ::exp(x); }
}  // namespace detail
#endif

// device_exp without its range test, for callers that bound their exponent to [-708, 708] themselves (the gap
// kernels' GapKernelMath, models/olive/cell/io_math.hpp). NaN gives NaN; |x| > 708 gives garbage. On a GPU the test costs 5 of
// an exponential's 24 instructions (DSETP, BRA and the BSSY/BSYNC pair around the call).
KOKKOS_FORCEINLINE_FUNCTION double device_exp_in_range(double x) {
#if defined(__CUDA_ARCH__)
  const double* k = detail::kExpConstants;
  const auto [t, r] = detail::reduce_exponent(x, k[detail::kInvLn2x64], k[detail::kLn2x64Hi], k[detail::kLn2x64Lo]);
  double p = fma(k[detail::kC5], r, k[detail::kC4]);
  p = fma(p, r, k[detail::kC3]);
  p = fma(p, r, 0.5);
  p = fma(p, r, 1.0);
  const double q = p * r;           // e^r - 1
  const int j = __double2loint(t);  // n = 64 m + j
  const double s = __ldg(&detail::kExp2Sixtyfourths[j & 63]);
  const double scale = __hiloint2double(__double2hiint(s) + (j >> 6) * (1 << 20), __double2loint(s));  // 2^(n/64)
  return fma(scale, q, scale);
#else
  return kx::exp(x);
#endif
}

// device_exp_in_range without the table: x = n ln2 + r with |r| <= ln2 / 2 and e^r - 1 from a degree-11 polynomial
// (six more FP64 operations than the table's degree 5, and no load). For callers that bound x to [-708, 708]
// themselves; NaN gives NaN. The tiled gap kernel's exponential (TiledKernel in models/olive/gap/io_tiled_kernel.hpp):
// there the table's lines do not stay in an L1 that the kernel's streamed junction lists pass through
// (docs/journal/2026-11-22-issue3-pass7.md).
KOKKOS_FORCEINLINE_FUNCTION double device_exp_poly_in_range(double x) {
#if defined(__CUDA_ARCH__)
  const double* k = detail::kPolyExpConstants;
  const auto [t, r] = detail::reduce_exponent(x, k[detail::kInvLn2], k[detail::kLn2Hi], k[detail::kLn2Lo]);
  double p = k[detail::kP10];
#pragma unroll
  for (int c = detail::kP9; c >= detail::kP2; --c) p = fma(p, r, k[c]);  // Horner, c9 .. c2
  p = fma(p, r, 0.5);
  p = fma(p, r, 1.0);
  const double q = p * r;                                                   // e^r - 1
  const double scale = __hiloint2double((__double2loint(t) + 1023) << 20, 0);  // 2^n, n in [-1022, 1023]
  return fma(scale, q, scale);
#else
  return kx::exp(x);
#endif
}

KOKKOS_FORCEINLINE_FUNCTION double device_exp(double x) {
#if defined(__CUDA_ARCH__)
  if (!(fabs(x) <= 708.0)) return detail::library_exp(x);
  return device_exp_in_range(x);
#else
  return kx::exp(x);
#endif
}

KOKKOS_FORCEINLINE_FUNCTION float device_exp(float x) { return kx::exp(x); }

// a / b for GPU kernels without the IEEE division's slow-path test and branch. Double: the hardware's reciprocal
// estimate, two Newton steps and one correction of the quotient (within 1 ulp of a / b in the test io_device_math);
// b = 0 or +-inf gives NaN where a / b gives +-inf or 0 (in the IO step only in a state that has already blown up).
// Float: __fdividef, MUFU reciprocal and a product (within 2 ulp for 2^-126 <= |b| <= 2^126; 0 above). Host code
// divides.
KOKKOS_FORCEINLINE_FUNCTION double device_div(double a, double b) {
#if defined(__CUDA_ARCH__)
  double y;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(b));
  y = fma(y, fma(-b, y, 1.0), y);
  y = fma(y, fma(-b, y, 1.0), y);
  const double q = a * y;
  return fma(fma(-b, q, a), y, q);
#else
  return a / b;
#endif
}

KOKKOS_FORCEINLINE_FUNCTION float device_div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdividef(a, b);
#else
  return a / b;
#endif
}

}  // namespace kbrain
