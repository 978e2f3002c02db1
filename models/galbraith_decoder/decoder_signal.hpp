#pragma once
// The decoder's signal pieces that need no backend: the band-limited stimulus (frequency domain, counter RNG, host
// FFT), the LIF tuning formulas of the study's code, the LIF step (exact exponential integration with the spike time
// interpolated inside the step, so rates match the analytic LIF curve), the PSC filter, the 2nd-order Butterworth
// low-pass and the NRMSE.
#include <cmath>
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include "core/rng/counter_rng.hpp"
#include "models/galbraith_decoder/decoder_fft.hpp"

namespace kbrain::galbraith {

inline constexpr double kPi = 3.14159265358979323846;

// n samples of band-limited white noise: every DFT bin k = 1 ... floor(cutoff·n·dt) (below Nyquist) gets a complex
// Gaussian coefficient (Box-Muller on counter_uniform(seed, stream, 2k), (.., 2k + 1)), every other bin (DC included)
// is 0; an inverse real FFT of length n, then scaled to the exact RMS. Periodic in n, so its length-n DFT has no
// power above the cut-off.
inline std::vector<double> band_limited_signal(std::int64_t n, double dt_s, double cutoff_hz, double rms,
                                               std::uint64_t seed, std::uint64_t stream) {
  using Fft = RealFft<Kokkos::DefaultHostExecutionSpace, double>;
  Fft fft(n, 1);
  typename Fft::ComplexRows spec("stimulus_spectrum", 1, n / 2 + 1);
  typename Fft::RealRows out("stimulus", 1, n);
  const std::int64_t top = std::min<std::int64_t>(static_cast<std::int64_t>(std::floor(cutoff_hz * double(n) * dt_s)),
                                                  (n - 1) / 2);
  for (std::int64_t k = 1; k <= top; ++k) {
    const double u1 = counter_uniform(seed, stream, std::uint64_t(2 * k));
    const double u2 = counter_uniform(seed, stream, std::uint64_t(2 * k + 1));
    const double r = std::sqrt(-2.0 * std::log(1.0 - u1));
    spec(0, k) = Kokkos::complex<double>(r * std::cos(2 * kPi * u2), r * std::sin(2 * kPi * u2));
  }
  fft.inverse(spec, out);
  double sum = 0;
  for (std::int64_t t = 0; t < n; ++t) sum += out(0, t) * out(0, t);
  const double scale = sum > 0 ? rms / std::sqrt(sum / double(n)) : 0;
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::int64_t t = 0; t < n; ++t) x[std::size_t(t)] = out(0, t) * scale;
  return x;
}

// The study's tuning (003:L2388-2402), V_th = 1: J such that an LIF neuron fires at rate r, and the pair
// (J_bias, α) with rate r_min at zero drive and r_max at full drive (e·x = 1).
inline double lif_current_for_rate(double rate_hz, double tau_ref_s, double tau_rc_s) {
  return 1.0 / (1.0 - std::exp((tau_ref_s * rate_hz - 1.0) / (tau_rc_s * rate_hz)));
}
struct LifTuning {
  double j_bias, alpha;
};
inline LifTuning lif_tuning(double r_max, double r_min, double tau_ref_s, double tau_rc_s) {
  const double jb = lif_current_for_rate(r_min, tau_ref_s, tau_rc_s);
  return {jb, lif_current_for_rate(r_max, tau_ref_s, tau_rc_s) - jb};
}
// The analytic LIF rate for a constant current (0 below threshold).
inline double lif_rate(double j, double tau_ref_s, double tau_rc_s) {
  return j <= 1 ? 0.0 : 1.0 / (tau_ref_s - tau_rc_s * std::log(1.0 - 1.0 / j));
}

// One step of the LIF neuron dV/dt = (J - V)/τ_RC, V_th = 1, reset 0 (times in seconds): exact exponential
// integration over the part of the step outside the refractory period; at a crossing the spike time is found inside
// the step and the refractory period starts there (so the rate does not round to whole steps). Returns whether it
// spiked.
KOKKOS_INLINE_FUNCTION bool lif_step(double& v, double& refractory, double j, double dt, double tau_rc, double tau_ref) {
  double active = dt - refractory;
  active = active < 0 ? 0 : (active > dt ? dt : active);
  v = v - (j - v) * ::expm1(-active / tau_rc);
  bool spiked = false;
  if (v > 1.0) {
    const double after = -tau_rc * ::log1p(-(v - 1.0) / (j - 1.0));  // time since the crossing
    v = 0;
    refractory = tau_ref + dt - after;
    spiked = true;
  }
  if (v < 0) v = 0;
  refractory -= dt;
  return spiked;
}

// The PSC filter of one unit (§1.2, order 0): h[j] = a^j / Σ, a = exp(-dt/τ_psc), j = 0 ... L-1,
// L = ceil(scale·τ_psc/dt).
struct PscFilter {
  double a = 0, norm = 0;  // h[j] = norm·a^j
  std::int64_t taps = 1;
};
inline PscFilter psc_filter(double tau_psc_s, double dt_s, double scale) {
  PscFilter f;
  f.taps = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(scale * tau_psc_s / dt_s - 1e-9)));
  f.a = std::exp(-dt_s / tau_psc_s);
  f.norm = (1.0 - f.a) / (1.0 - std::pow(f.a, double(f.taps)));
  return f;
}

// 2nd-order Butterworth low-pass (bilinear transform, pre-warped), transposed direct form II in double.
struct Biquad {
  double b0, b1, b2, a1, a2;
};
inline Biquad butterworth_lowpass(double cutoff_hz, double dt_s) {
  const double k = std::tan(kPi * cutoff_hz * dt_s), q = std::sqrt(2.0);
  const double norm = 1.0 / (1.0 + q * k + k * k);
  const double b0 = k * k * norm;
  return {b0, 2 * b0, b0, 2.0 * (k * k - 1.0) * norm, (1.0 - q * k + k * k) * norm};
}

// NRMSE of one component: RMSE / (max - min of the true signal).
inline double nrmse_by_range(const double* truth, const double* estimate, std::int64_t n, std::int64_t stride) {
  double lo = truth[0], hi = truth[0], sq = 0;
  for (std::int64_t t = 0; t < n; ++t) {
    const double x = truth[t * stride], e = estimate[t * stride] - x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    sq += e * e;
  }
  return std::sqrt(sq / double(n)) / (hi - lo);
}

}  // namespace kbrain::galbraith
