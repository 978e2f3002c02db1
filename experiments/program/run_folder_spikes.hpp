#pragma once
// A finished spiking run's folder read for its statistics (`kbrain stats`): run.json (dt, steps, neurons and the
// populations) and the spikes, from spikes.csv, spikes.kbs or spikes.h5 (docs/output-formats.md), as each
// population's spike trains in ms. Bad input throws ConfigError naming the file (and, for CSV, the line).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "spiking/population_metrics.hpp"

namespace kbrain {

struct RunPopulationSpikes {
  std::string name;
  std::int64_t first = 0, size = 0;             // neurons first … first + size − 1
  std::vector<spiking::SpikeTrain> trains;     // one per neuron of the population, times ascending
};

struct RunFolderSpikes {
  std::filesystem::path dir;
  std::string spike_file;  // the file read: spikes.csv, spikes.kbs or spikes.h5
  double dt_ms = 0;
  std::int64_t steps = 0, neurons = 0;
  double end_ms() const { return static_cast<double>(steps) * dt_ms; }
  std::vector<RunPopulationSpikes> populations;
};

// The populations come from run.json's "populations" (names in index order, comma-separated) with "first_<name>"
// and "neurons_<name>"; without them, one population "all" of every neuron. A spike of step s is at s * dt_ms.
RunFolderSpikes read_run_folder_spikes(const std::filesystem::path& dir);

}  // namespace kbrain
