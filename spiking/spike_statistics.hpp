#pragma once
// Population statistics of a spike list: mean rate and mean ISI coefficient of variation per population.
// The Brian2 validation script (tests/brian2/) computes the same quantities the same way.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spiking/synapse_network.hpp"

namespace kbrain::spiking {

struct PopulationStats {
  std::string name;
  std::int64_t neurons = 0;
  std::int64_t first = 0;  // first neuron index
  std::int64_t spikes = 0;
  double rate_hz = 0;   // spikes / (neurons * duration)
  double isi_cv = 0;    // mean over neurons with >= 3 spikes of std(ISI) / mean(ISI) (population std); NaN if none
  std::int64_t cv_neurons = 0;
};

// events: (step, neuron) pairs in any order; duration_ms: simulated time.
std::vector<PopulationStats> population_stats(const std::vector<Population>& populations,
                                              const std::vector<std::pair<std::int64_t, std::int64_t>>& events,
                                              double duration_ms, double dt_ms);

}  // namespace kbrain::spiking
