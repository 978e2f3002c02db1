#pragma once
// The result of `kbrain compare` for a spiking network: one row per (size, backend, precision) with time per
// biological second, synaptic events per second, speedups, population rates / ISI CVs and their difference from the
// serial double-precision run. Written as Markdown, CSV and JSON.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace kbrain {

struct SpikingPopulationFigures {
  std::string name;
  double rate_hz = 0, isi_cv = 0;
};

struct SpikingComparisonRow {
  std::int64_t neurons = 0, synapses = 0;
  std::string backend, precision;
  std::int64_t steps = 0, steps_requested = 0;
  double setup_s = 0, simulate_s = 0;
  double wall_s_per_bio_s = 0;        // simulate_s / (steps * dt / 1000)
  double synaptic_events_per_s = 0;   // delivered synaptic events / simulate_s
  double speedup_vs_serial = std::numeric_limits<double>::quiet_NaN();
  double speedup_vs_openmp = std::numeric_limits<double>::quiet_NaN();
  std::vector<SpikingPopulationFigures> populations;
  double max_rate_diff_pct = std::numeric_limits<double>::quiet_NaN();  // vs serial double, over populations
  double max_cv_diff_pct = std::numeric_limits<double>::quiet_NaN();
  std::string identical_spikes = "n/a";  // yes | no | n/a (different step counts or the reference itself)
  std::string note;
};

struct SpikingComparisonReport {
  std::string experiment, model, date, commit, command, kokkos;
  double dt_ms = 0.1;
  std::vector<std::pair<std::string, std::string>> hardware;
  std::vector<SpikingComparisonRow> rows;
};

// Speedups from rows with the same neurons and precision (wall time per biological second).
void compute_speedups(SpikingComparisonReport& r);
std::string to_markdown(const SpikingComparisonReport& r);
void write_csv(const std::filesystem::path& file, const SpikingComparisonReport& r);
void write_json(const std::filesystem::path& file, const SpikingComparisonReport& r);

}  // namespace kbrain
