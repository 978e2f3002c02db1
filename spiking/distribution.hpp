#pragma once
// A per-synapse (or per-neuron) value drawn from a distribution, as a pure function of (key, stream): constant,
// normal, uniform or lognormal, optionally kept within [min, max] by redrawing (NEST's `redraw`) or by clipping.
// Evaluated the same way on the host and inside kernels. Normal draws are Box-Muller over the stream's counters
// (2a, 2a + 1) for attempt a. CUDA's log and cos may differ from the host's libm in the last bit, so the standard
// normal deviate is rounded to a grid of 2^-20 before it is used: host and device then agree unless a deviate lies
// within an ulp of a grid point's midpoint (about 1e-10 of the draws), and everything after it (the affine step,
// spelled unfused as in synapse_draws.hpp, the bounds, the delay's rounding) is exact arithmetic on equal values.
// The grid moves a deviate by at most 5e-7 standard deviations.
#include <cmath>
#include <cstdint>

#include "spiking/counter_draws.hpp"
#include "spiking/synapse_draws.hpp"

namespace kbrain::spiking {

// |z| of a Box-Muller normal cannot exceed sqrt(-2 ln 2^-53) = 8.5716 (u1 >= 2^-53): bounds without a pass over
// the draws.
inline constexpr double kNormalDrawBound = 8.572;
// Redraws tried before a value out of [min, max] is clipped instead (at 10 % rejection, 2^-64 of the draws).
inline constexpr int kMaxRedraws = 64;

struct DistRule {
  enum Kind : int { Constant = 0, Normal = 1, Uniform = 2, Lognormal = 3 };
  enum Bound : int { None = 0, Redraw = 1, Clip = 2 };
  int kind = Constant;
  int bound = None;
  double a = 0, b = 0;           // constant: a; normal: mean a, std b; uniform: low a, span b; lognormal: mu a, sigma b
  double min = -INFINITY, max = INFINITY;

  static DistRule constant(double v) {
    DistRule d;
    d.a = v;
    return d;
  }

  KBRAIN_HOST_DEVICE inline double raw(std::uint64_t key, std::uint64_t stream, std::uint64_t attempt) const {
    if (kind == Constant) return a;
    const double u1 = counter_uniform(key, stream, 2 * attempt);
    if (kind == Uniform) return affine_unfused(a, b, u1);
    const double u2 = counter_uniform(key, stream, 2 * attempt + 1);
    // the global functions: libm on the host, CUDA's math library on the device (no Kokkos here: host-only
    // libraries include this header)
    const double z = ::sqrt(-2.0 * ::log(1.0 - u1)) * ::cos(6.283185307179586 * u2);
    const double zq = static_cast<double>(round_half_away(z * 0x1p20)) * 0x1p-20;
    const double x = affine_unfused(a, b, zq);
    return kind == Normal ? x : ::exp(x);
  }

  KBRAIN_HOST_DEVICE inline double at(std::uint64_t key, std::uint64_t stream) const {
    double x = raw(key, stream, 0);
    if (bound == None || kind == Constant) return x;
    for (int attempt = 1; bound == Redraw && (x < min || x > max) && attempt < kMaxRedraws; ++attempt)
      x = raw(key, stream, static_cast<std::uint64_t>(attempt));
    return x < min ? min : (x > max ? max : x);
  }

  // Every value at() can return lies in [lowest(), highest()].
  double lowest() const {
    double lo = a;
    if (kind == Normal) lo = a - kNormalDrawBound * b;
    if (kind == Lognormal) lo = 0;
    if (bound != None && kind != Constant) lo = std::fmax(lo, min);
    return lo;
  }
  double highest() const {
    double hi = a;
    if (kind == Normal) hi = a + kNormalDrawBound * b;
    if (kind == Uniform) hi = a + b;
    if (kind == Lognormal) hi = std::exp(a + kNormalDrawBound * b);
    if (bound != None && kind != Constant) hi = std::fmin(hi, max);
    return hi;
  }
  double largest_magnitude() const { return std::fmax(std::fabs(lowest()), std::fabs(highest())); }
  // The distribution's mean before bounds (a redraw far out in the tails leaves it as it is).
  double mean() const {
    switch (kind) {
      case Normal: return a;
      case Uniform: return a + b / 2;
      case Lognormal: return std::exp(a + b * b / 2);
      default: return a;
    }
  }
};

// A key per (seed, purpose, projection): the streams of two projections never share draws.
KBRAIN_HOST_DEVICE inline std::uint64_t projection_key(std::uint64_t seed, Purpose purpose, std::int64_t projection) {
  return stream_key(seed, purpose) + static_cast<std::uint64_t>(projection + 1) * 0xA24BAED4963EE407ull;
}

}  // namespace kbrain::spiking
