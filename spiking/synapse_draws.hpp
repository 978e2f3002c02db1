#pragma once
// The per-synapse values of a generated spiking network as pure functions of (seed, pre, post), evaluated the same
// way on the host and inside kernels: weights (constant, or uniform in [low, high)), delays (one for all, or a whole
// number of ms drawn per synapse as in Wang 2012), and the rounding to the fixed-point grid of spiking delivery.
// Device code must not let the compiler fuse a multiply and an add (nvcc does by default, g++ in ISO mode does
// not): a fused result can differ in the last bit and then round to a different fixed-point weight, so the device
// path spells the two roundings out.
#include <cmath>
#include <cstdint>

#include "spiking/counter_draws.hpp"

namespace kbrain::spiking {

// low + span * u with two roundings on every backend.
KBRAIN_HOST_DEVICE inline double affine_unfused(double low, double span, double u) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(low, __dmul_rn(span, u));
#else
  return low + span * u;
#endif
}

// llround for |x| < 2^62: nearest integer, halves away from zero (x - trunc(x) is exact in binary floating point).
KBRAIN_HOST_DEVICE inline long long round_half_away(double x) {
  long long r = static_cast<long long>(x);
  const double frac = x - static_cast<double>(r);
  if (frac >= 0.5) ++r;
  else if (frac <= -0.5) --r;
  return r;
}

// A weight rule on the device: kind 0 = constant `value`, 1 = uniform in [low, low + span).
struct WeightRule {
  int uniform = 0;
  double value = 0, low = 0, span = 0;

  KBRAIN_HOST_DEVICE inline double at(std::uint64_t seed, std::int64_t pre, std::int64_t post) const {
    if (!uniform) return value;
    return affine_unfused(low, span, draw_uniform(seed, Purpose::Weight, static_cast<std::uint64_t>(pre),
                                                  static_cast<std::uint64_t>(post)));
  }
  // The largest |weight| the rule can give (constant: |value|; uniform: the larger end).
  KBRAIN_HOST_DEVICE inline double bound() const {
    if (!uniform) return value < 0 ? -value : value;
    const double a = low < 0 ? -low : low, b = low + span < 0 ? -(low + span) : low + span;
    return a > b ? a : b;
  }
};

// Synaptic delay in network steps: `steps` for every synapse, or (Wang 2012) d_ms = min_ms + floor(u * choices)
// with u keyed on (seed, pre, post), arriving exactly d_ms after the spike's network step: max(0, round(d_ms /
// step_ms) - 1) (the delivery slot is step + 1 + delay).
struct DelayRule {
  std::int32_t steps = 0;
  std::int64_t choices = 0;  // 0: constant `steps`
  double min_ms = 0, step_ms = 1;

  static DelayRule constant(std::int32_t steps) {
    DelayRule d;
    d.steps = steps;
    return d;
  }
  static DelayRule whole_ms(double min_ms, double max_ms, double step_ms) {
    DelayRule d;
    d.min_ms = min_ms;
    d.step_ms = step_ms;
    d.choices = static_cast<std::int64_t>(std::floor(max_ms - min_ms + 1e-9)) + 1;
    return d;
  }

  KBRAIN_HOST_DEVICE inline std::int32_t at(std::uint64_t seed, std::int64_t pre, std::int64_t post) const {
    if (choices == 0) return steps;
    const double u = draw_uniform(seed, Purpose::Delay, static_cast<std::uint64_t>(pre),
                                  static_cast<std::uint64_t>(post));
    const double d_ms = min_ms + static_cast<double>(static_cast<std::int64_t>(u * static_cast<double>(choices)));
    const long long s = round_half_away(d_ms / step_ms) - 1;
    return static_cast<std::int32_t>(s > 0 ? s : 0);
  }
  // The largest delay the rule can give.
  std::int32_t bound() const {
    if (choices == 0) return steps;
    const long long s = round_half_away((min_ms + static_cast<double>(choices - 1)) / step_ms) - 1;
    return static_cast<std::int32_t>(s > 0 ? s : 0);
  }
};

}  // namespace kbrain::spiking
