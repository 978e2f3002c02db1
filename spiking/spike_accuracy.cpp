#include "spiking/spike_accuracy.hpp"

#include <algorithm>
#include <cmath>

namespace kbrain::spiking {

std::vector<TimedSpike> to_times(const std::vector<std::pair<std::int64_t, std::int64_t>>& events, double dt_ms) {
  std::vector<TimedSpike> out;
  out.reserve(events.size());
  for (const auto& e : events) out.push_back({double(e.first) * dt_ms, e.second});
  return out;
}

SpikeMatch match_spikes(const std::vector<TimedSpike>& reference, const std::vector<TimedSpike>& test,
                        std::int64_t neurons, double window_ms) {
  std::vector<std::vector<double>> ref(neurons), tst(neurons);
  for (const auto& s : reference)
    if (s.neuron >= 0 && s.neuron < neurons) ref[s.neuron].push_back(s.t_ms);
  for (const auto& s : test)
    if (s.neuron >= 0 && s.neuron < neurons) tst[s.neuron].push_back(s.t_ms);
  SpikeMatch m;
  m.reference = static_cast<std::int64_t>(reference.size());
  m.test = static_cast<std::int64_t>(test.size());
  std::vector<double> err;
  for (std::int64_t i = 0; i < neurons; ++i) {
    auto& a = ref[i];
    auto& b = tst[i];
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::size_t p = 0, q = 0;
    while (p < a.size() && q < b.size()) {
      const double d = b[q] - a[p];
      if (std::fabs(d) <= window_ms) {
        err.push_back(std::fabs(d));
        ++p;
        ++q;
      } else if (d < 0) {
        ++q;
      } else {
        ++p;
      }
    }
  }
  m.matched = static_cast<std::int64_t>(err.size());
  if (!err.empty()) {
    std::sort(err.begin(), err.end());
    double sum = 0;
    for (double e : err) sum += e;
    m.mean_abs_ms = sum / double(err.size());
    m.median_abs_ms = err[err.size() / 2];
    m.p95_abs_ms = err[std::min(err.size() - 1, static_cast<std::size_t>(0.95 * double(err.size())))];
    m.max_abs_ms = err.back();
  }
  return m;
}

std::vector<double> population_rate(const std::vector<TimedSpike>& spikes, std::int64_t neurons, double t0_ms,
                                    double t1_ms, double bin_ms) {
  const std::size_t bins = static_cast<std::size_t>(std::max(0.0, std::floor((t1_ms - t0_ms) / bin_ms)));
  std::vector<double> r(bins, 0.0);
  for (const auto& s : spikes) {
    if (s.t_ms < t0_ms) continue;
    const std::size_t b = static_cast<std::size_t>((s.t_ms - t0_ms) / bin_ms);
    if (b < bins) r[b] += 1.0;
  }
  const double scale = 1000.0 / (bin_ms * double(std::max<std::int64_t>(1, neurons)));
  for (double& x : r) x *= scale;
  return r;
}

double spectral_peak_hz(const std::vector<double>& rate, double bin_ms, double f_lo, double f_hi, double df,
                        double* peak_power) {
  const std::size_t n = rate.size();
  if (peak_power) *peak_power = 0;
  if (n < 4) return 0;
  double mean = 0;
  for (double x : rate) mean += x;
  mean /= double(n);
  std::vector<double> y(n);
  const double pi = 3.14159265358979323846;
  for (std::size_t k = 0; k < n; ++k)
    y[k] = (rate[k] - mean) * 0.5 * (1.0 - std::cos(2 * pi * double(k) / double(n - 1)));
  double best_f = 0, best_p = 0;
  for (double f = f_lo; f <= f_hi + 1e-12; f += df) {
    const double w = 2 * pi * f * bin_ms * 1e-3;
    double re = 0, im = 0;
    for (std::size_t k = 0; k < n; ++k) {
      re += y[k] * std::cos(w * double(k));
      im -= y[k] * std::sin(w * double(k));
    }
    const double p = re * re + im * im;
    if (p > best_p) {
      best_p = p;
      best_f = f;
    }
  }
  if (peak_power) *peak_power = best_p;
  return best_p > 0 ? best_f : 0;
}

}  // namespace kbrain::spiking
