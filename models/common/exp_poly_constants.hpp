#pragma once
// The constants of the table-free double exponential, shared by the GPU's device_exp_poly_in_range
// (models/common/device_math.hpp) and the host's simd_exp (models/common/simd_exp.hpp): x = n ln2 + r with
// |r| <= ln2 / 2, e^r = 1 + r (1 + r / 2 + c2 r^2 + ... + c10 r^10). The coefficients are a Chebyshev fit of the
// part beyond 1 + r / 2, made with 50-digit arithmetic and rounded to double: truncation error 0.15 ulp of e^r.
namespace kbrain::exp_poly {

inline constexpr double kInvLn2 = 0x1.71547652b82fep+0;
inline constexpr double kLn2Hi = 0x1.62e42fee00000p-1;  // n * kLn2Hi is exact for |n| < 2^21
inline constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;
inline constexpr int kNumCoefficients = 9;
inline constexpr double kC[kNumCoefficients] = {  // c2 .. c10
    0x1.5555555555555p-3, 0x1.5555555554cb8p-5, 0x1.1111111110e6bp-7, 0x1.6c16c1738ecf7p-10, 0x1.a01a01a4b26e2p-13,
    0x1.a019c9ab213aap-16, 0x1.71de17e7960e6p-19, 0x1.28803926c8ea8p-22, 0x1.af2360e209bc8p-26};

}  // namespace kbrain::exp_poly
