#pragma once
// What a run returns to `kbrain run`, `kbrain compare` and tests: phase times, spikes, probes and the model's own
// figures (named numbers for run.json and the compare table).
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "spiking/spike_statistics.hpp"

namespace kbrain {

// A partitioned run's table of its ranks, on the rank that writes (`kbrain run` writes it as ranks.csv).
struct RankTable {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // one per rank, cells as written ("" for a value not measured)
};

struct RunResult {
  std::string backend, precision;
  std::int64_t steps = 0;         // timed steps (after the warm-up)
  std::int64_t warmup_steps = 0;  // steps before them
  double generate_s = 0, setup_s = 0, simulate_s = 0, output_s = 0;  // generate: networks built on the backend
  std::int64_t spikes = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> events;  // (updates done, cell), sorted; if keep_spikes
  std::vector<double> probes;        // (steps / probe_every) x probe cells, sample-major
  std::int64_t device_bytes = 0;
  double connections = 0;            // as built (a generated network: its actual count)
  double energy_j = std::numeric_limits<double>::quiet_NaN();  // the simulate phase's (core/energy): NaN = no counter
  std::string energy_counter;        // which counter, or "n/a: why"
  double bytes_moved = 0;            // bytes the simulate phase had to move through memory (the model's count; 0: none)
  double flops = 0;                  // floating-point operations of the simulate phase (the model's count; 0: none)
  std::string strategy;              // how the model ran, e.g. the gap kernel ("mesh, 2 steps per launch")
  std::vector<std::pair<std::string, double>> figures;  // model counts: "synaptic_events", ... (run.json: per s)
  std::vector<std::pair<std::string, double>> values;   // model values reported as they are: totals, digests, times
  std::vector<spiking::PopulationStats> populations;     // spiking networks
  std::vector<std::pair<std::string, std::string>> fields;  // model text for run.json, printed ("partition", ...)
  std::vector<std::pair<std::string, double>> details;  // model numbers for run.json only (per-rank times, ...)
  std::vector<std::string> report;   // lines the printed summary adds (a partitioned run's per-rank tables)
  RankTable rank_table;              // a partitioned run: ranks.csv

  double figure(const std::string& name, double fallback = 0) const {
    for (const auto& [k, v] : figures)
      if (k == name) return v;
    return fallback;
  }
  double value(const std::string& name, double fallback = 0) const {
    for (const auto& [k, v] : values)
      if (k == name) return v;
    return fallback;
  }
};

}  // namespace kbrain
