#pragma once
// exp() for host kernels that must vectorise: branch-free (clamp, Cody–Waite range reduction, Taylor polynomial,
// exponent built with integer ops), so `#pragma omp simd` loops calling it become SIMD code. glibc's exp is a call
// the vectoriser cannot see through (its vector variants need -ffast-math).
// Accuracy: double degree-13 polynomial on |r| <= ln2/2, truncation < 5e-18 relative (about 1 ulp overall);
// float degree 7, truncation < 6e-9 relative (about 1 ulp). Inputs are clamped to the finite range.
// Host-only (GPU kernels use models/common/device_math.hpp). Needs -fno-trapping-math for GCC to if-convert the
// clamps.
#include <cstdint>
#include <cstring>

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
// with a call per exponential, slower than libm: docs/performance.md).
#if defined(__GNUC__) || defined(__clang__)
#define KBRAIN_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define KBRAIN_ALWAYS_INLINE inline
#endif

namespace kbrain {

KBRAIN_ALWAYS_INLINE double simd_exp(double x) {
  x = x < -708.0 ? -708.0 : x;
  x = x > 709.0 ? 709.0 : x;
  const double shift = 0x1.8p52;  // adding it rounds to an integer held in the low mantissa bits
  const double t = x * 1.4426950408889634 + shift;
  const double n = t - shift;
  double r = x - n * 0x1.62e42fee00000p-1;  // ln2 high part: n * hi is exact
  r = r - n * 0x1.a39ef35793c76p-33;        // ln2 low part
  double p = 1.0 / 6227020800.0;            // 1/13!
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  std::int64_t bits;
  bits = KBRAIN_BIT_CAST(std::int64_t, t);
  bits = (bits + 1023) << 52;  // low bits of t = n (+ offset that shifts out): 2^n
  double scale;
  scale = KBRAIN_BIT_CAST(double, bits);
  return p * scale;
}

KBRAIN_ALWAYS_INLINE float simd_exp(float x) {
  x = x < -87.0f ? -87.0f : x;
  x = x > 88.0f ? 88.0f : x;
  const float shift = 0x1.8p23f;
  const float t = x * 1.44269504f + shift;
  const float n = t - shift;
  float r = x - n * 0x1.62e400p-1f;  // ln2 high part (exact products)
  r = r - n * 0x1.7f7d1cp-20f;       // ln2 low part
  float p = 1.0f / 5040.0f;          // 1/7!
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  std::int32_t bits;
  bits = KBRAIN_BIT_CAST(std::int32_t, t);
  bits = (bits + 127) << 23;
  float scale;
  scale = KBRAIN_BIT_CAST(float, bits);
  return p * scale;
}

}  // namespace kbrain
