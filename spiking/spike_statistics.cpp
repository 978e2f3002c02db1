#include "spiking/spike_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbrain::spiking {

std::vector<PopulationStats> population_stats(const std::vector<Population>& populations,
                                              const std::vector<std::pair<std::int64_t, std::int64_t>>& events,
                                              double duration_ms, double dt_ms) {
  std::int64_t neurons = 0;
  for (const auto& p : populations) neurons = std::max(neurons, p.first + p.size);
  std::vector<std::vector<std::int64_t>> steps(static_cast<std::size_t>(neurons));
  for (const auto& [step, n] : events)
    if (n >= 0 && n < neurons) steps[n].push_back(step);

  std::vector<PopulationStats> out;
  for (const auto& pop : populations) {
    PopulationStats s;
    s.name = pop.name;
    s.neurons = pop.size;
    s.first = pop.first;
    double cv_sum = 0;
    for (std::int64_t i = pop.first; i < pop.first + pop.size; ++i) {
      auto& t = steps[i];
      s.spikes += static_cast<std::int64_t>(t.size());
      if (t.size() < 3) continue;
      std::sort(t.begin(), t.end());
      double sum = 0, sum2 = 0;
      const double k = double(t.size() - 1);
      for (std::size_t j = 1; j < t.size(); ++j) {
        const double isi = double(t[j] - t[j - 1]) * dt_ms;
        sum += isi;
        sum2 += isi * isi;
      }
      const double mean = sum / k;
      const double var = std::max(0.0, sum2 / k - mean * mean);
      cv_sum += std::sqrt(var) / mean;
      ++s.cv_neurons;
    }
    s.rate_hz = pop.size > 0 ? double(s.spikes) / (double(pop.size) * duration_ms / 1000.0) : 0.0;
    s.isi_cv = s.cv_neurons > 0 ? cv_sum / double(s.cv_neurons) : std::numeric_limits<double>::quiet_NaN();
    out.push_back(s);
  }
  return out;
}

}  // namespace kbrain::spiking
