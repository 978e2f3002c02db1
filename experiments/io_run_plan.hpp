#pragma once
// Everything one IO run needs, prepared on the host once and shared by every backend/precision that runs it.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/config/experiment_config.hpp"
#include "core/network/gap_network.hpp"
#include "models/io/io_parameters.hpp"

namespace kbrain {

struct IoRunPlan {
  const ExperimentConfig* config = nullptr;
  io::IoParameters params;
  std::shared_ptr<const GapNetwork> network;
  std::vector<double> g_cal;
  std::int64_t steps = 0;
  double network_build_s = 0;

  // Outputs of `kbrain run` (empty out_dir => none)
  std::filesystem::path out_dir;
  bool write_trace = false, write_spikes = false;
  std::vector<int> trace_vars;
  std::vector<std::int64_t> trace_cells;

  // In-memory V_axon probes for cross-backend agreement (`kbrain compare`), every probe_every steps
  std::vector<std::int64_t> probe_cells;
  std::int64_t probe_every = 1;
  bool count_spikes = true;
  bool use_mesh_kernel = true;
  bool progress = true;
};

struct IoRunResult {
  std::string backend, precision;
  std::int64_t steps = 0;
  double setup_s = 0, simulate_s = 0, output_s = 0;
  std::int64_t spikes = 0;
  std::vector<std::int64_t> spike_steps;   // step of every spike (for agreement over a common prefix)
  std::vector<double> probe_v_axon;        // (steps / probe_every) x probe_cells, sample-major
  bool mesh_kernel = false;
  std::int64_t device_bytes = 0;
};

// Builds network, g_CaL and parameters for `cfg`; `size_override` > 0 replaces the network size (mesh side or
// all_to_all cells). Throws ConfigError / std::runtime_error with a clear message.
IoRunPlan make_io_plan(const ExperimentConfig& cfg, std::int64_t size_override, std::int64_t steps_override);

// Evenly spread probe cells (always includes cell 0 and the last cell).
std::vector<std::int64_t> spread_cells(std::int64_t cells, std::int64_t count);

}  // namespace kbrain
