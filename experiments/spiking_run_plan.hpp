#pragma once
// Everything one spiking-network run needs, prepared on the host once (parameters, network, initial values,
// drive) and shared by every backend/precision that runs it; and what a run returns.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/config/experiment_config.hpp"
#include "models/point/point_setup.hpp"
#include "spiking/spike_statistics.hpp"

namespace kbrain {

struct SpikingRunPlan {
  const ExperimentConfig* config = nullptr;
  std::shared_ptr<const point::PointSetup> setup;
  std::int64_t steps = 0;
  double network_build_s = 0;
  std::filesystem::path out_dir;     // `kbrain run` outputs (empty => none)
  bool write_spikes = false;
  std::vector<int> trace_vars;       // PointVar indices
  std::vector<std::int64_t> trace_neurons;
  bool keep_spikes = true;           // spike list in the result (statistics, agreement)
  bool progress = true;
};

struct SpikingRunResult {
  std::string backend, precision;
  std::int64_t steps = 0;
  double setup_s = 0, simulate_s = 0, output_s = 0;
  std::int64_t spikes = 0;           // neuron spikes
  double synaptic_events = 0;        // spikes x out-degree (sources: their mean out-degree)
  std::vector<std::pair<std::int64_t, std::int64_t>> events;  // (updates done, neuron), sorted
  std::vector<spiking::PopulationStats> populations;
  std::int64_t device_bytes = 0;
};

// `size_override` > 0 sets the neuron count (fixed-probability networks keep the expected in-degree).
SpikingRunPlan make_spiking_plan(const ExperimentConfig& cfg, std::int64_t size_override, std::int64_t steps_override);

// run_spiking<Backend, Real> for a backend chosen by name (instantiated in spiking_dispatch.cpp).
SpikingRunResult run_spiking_on(const std::string& backend, Precision precision, const SpikingRunPlan& plan);

}  // namespace kbrain
