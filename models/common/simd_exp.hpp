#pragma once
// exp() for host kernels that must vectorise: branch-free (clamp, Cody–Waite range reduction, polynomial, exponent
// built with integer ops), so `#pragma omp simd` loops calling it become SIMD code. glibc's exp is a call the
// vectoriser cannot see through (its vector variants need -ffast-math).
// Accuracy: double, the degree-11 Chebyshev fit of exp_poly_constants.hpp on |r| <= ln2/2 (within 1.5 ulp, test
// simd_exp); float, the degree-7 Taylor polynomial, truncation < 6e-9 relative (within 2 ulp). Inputs are clamped
// to the finite range. The polynomials use fused multiply-adds where the target has FMA (madd).
// Host-only (GPU kernels use models/common/device_math.hpp). Needs -fno-trapping-math for GCC to if-convert the
// clamps.
#include <cstdint>
#include <cstring>

#include "models/common/exp_poly_constants.hpp"

// Bit reinterpretation the vectoriser sees through (memcpy hides it from GCC 12's if-conversion).
#if defined(__has_builtin)
#if __has_builtin(__builtin_bit_cast)
#define KBRAIN_BIT_CAST(T, v) __builtin_bit_cast(T, v)
#endif
#endif
#ifndef KBRAIN_BIT_CAST
namespace kbrain::detail {
template <class To, class From>
inline To bit_cast_copy(const From& v) {
  To out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}
}  // namespace kbrain::detail
#define KBRAIN_BIT_CAST(T, v) ::kbrain::detail::bit_cast_copy<T>(v)
#endif

// Always inlined: a call the compiler keeps out of line stops the `omp simd` loop around it from vectorising (in
// large translation units GCC's inliner gave up on the double version, and the double host kernel ran scalar code
// with a call per exponential, slower than libm: docs/journal/2026-11-22-cpu-simd-inlining-dev-vm.md).
#if defined(__GNUC__) || defined(__clang__)
#define KBRAIN_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define KBRAIN_ALWAYS_INLINE inline
#endif

namespace kbrain {

// a * b + c: one fused multiply-add where the target has FMA (one rounding: every vectorised and scalar copy of a
// loop computes the same bits, unlike compiler contraction, which -ffp-contract=off turns off), else two operations.
template <class Real>
KBRAIN_ALWAYS_INLINE Real madd(Real a, Real b, Real c) {
#if defined(__FMA__) || defined(__aarch64__)
  if constexpr (sizeof(Real) == 4)
    return __builtin_fmaf(a, b, c);
  else
    return __builtin_fma(a, b, c);
#else
  return a * b + c;
#endif
}

// Double: e^x = 2^n e^r, |r| <= ln2/2, e^r = 1 + r (1 + r (1/2 + r P(r))) with the degree-11 fit of the GPU's
// device_exp_poly_in_range (models/common/device_math.hpp), 2^n built from t's low bits.
KBRAIN_ALWAYS_INLINE double simd_exp(double x) {
  x = x < -708.0 ? -708.0 : x;
  x = x > 709.0 ? 709.0 : x;
  const double shift = 0x1.8p52;  // adding it rounds to an integer held in the low mantissa bits
  const double t = madd(x, exp_poly::kInvLn2, shift);
  const double n = t - shift;
  double r = madd(n, -exp_poly::kLn2Hi, x);  // n * hi is exact
  r = madd(n, -exp_poly::kLn2Lo, r);
  using exp_poly::kC;  // Horner, c10 .. c2 (written out: a loop here stops the caller's `omp simd` vectorising)
  double p = madd(kC[8], r, kC[7]);
  p = madd(p, r, kC[6]);
  p = madd(p, r, kC[5]);
  p = madd(p, r, kC[4]);
  p = madd(p, r, kC[3]);
  p = madd(p, r, kC[2]);
  p = madd(p, r, kC[1]);
  p = madd(p, r, kC[0]);
  p = madd(p, r, 0.5);
  p = madd(p, r, 1.0);
  const double q = p * r;  // e^r - 1
  // Unsigned: the shift drops t's high bits, which overflows a signed type (undefined; the sanitizer build says so).
  std::uint64_t bits;
  bits = KBRAIN_BIT_CAST(std::uint64_t, t);
  bits = (bits + 1023) << 52;  // low bits of t = n (+ offset that shifts out): 2^n
  double scale;
  scale = KBRAIN_BIT_CAST(double, bits);
  return madd(scale, q, scale);
}

// Float: Taylor polynomial of degree 7 on |r| <= ln2/2.
KBRAIN_ALWAYS_INLINE float simd_exp(float x) {
  x = x < -87.0f ? -87.0f : x;
  x = x > 88.0f ? 88.0f : x;
  const float shift = 0x1.8p23f;
  const float t = madd(x, 1.44269504f, shift);
  const float n = t - shift;
  float r = madd(n, -0x1.62e400p-1f, x);  // ln2 high part (exact products)
  r = madd(n, -0x1.7f7d1cp-20f, r);       // ln2 low part
  float p = 1.0f / 5040.0f;               // 1/7!
  p = madd(p, r, 1.0f / 720.0f);
  p = madd(p, r, 1.0f / 120.0f);
  p = madd(p, r, 1.0f / 24.0f);
  p = madd(p, r, 1.0f / 6.0f);
  p = madd(p, r, 0.5f);
  p = madd(p, r, 1.0f);
  const float q = p * r;  // e^r - 1
  std::uint32_t bits;  // unsigned, as in the double version
  bits = KBRAIN_BIT_CAST(std::uint32_t, t);
  bits = (bits + 127) << 23;
  float scale;
  scale = KBRAIN_BIT_CAST(float, bits);
  return madd(scale, q, scale);
}

}  // namespace kbrain
