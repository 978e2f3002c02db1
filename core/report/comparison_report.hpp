#pragma once
// The result of `kbrain compare`: one row per (size, backend, precision), written as Markdown, CSV and JSON.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace kbrain {

struct ComparisonRow {
  std::int64_t cells = 0, junctions = 0;
  std::string size_label;              // e.g. "256x256"
  std::string backend, precision;
  std::int64_t steps = 0;              // steps actually run
  std::int64_t steps_requested = 0;    // steps the experiment asks for (steps < steps_requested => reduced)
  double setup_s = 0, simulate_s = 0, output_s = 0;
  double ns_per_cell_step = 0;         // simulate_s / (cells * steps)
  double wall_s_per_bio_s = 0;         // simulate_s / (steps * dt / 1000)
  double speedup_vs_serial = std::numeric_limits<double>::quiet_NaN();
  double speedup_vs_openmp = std::numeric_limits<double>::quiet_NaN();
  double max_abs_dv_axon = std::numeric_limits<double>::quiet_NaN();  // vs serial double, over common steps
  std::int64_t spikes = 0, reference_spikes = -1;                     // -1: no reference
  std::string note;
};

struct ComparisonReport {
  std::string experiment, date, commit, command, kokkos;
  double dt_ms = 0.05;
  std::vector<std::pair<std::string, std::string>> hardware;  // backend -> description
  std::vector<ComparisonRow> rows;
};

// Fills speedup_vs_serial / speedup_vs_openmp from rows with the same cells and precision (ns_per_cell_step ratio).
void compute_speedups(ComparisonReport& r);
std::string to_markdown(const ComparisonReport& r);
void write_csv(const std::filesystem::path& file, const ComparisonReport& r);
void write_json(const std::filesystem::path& file, const ComparisonReport& r);

}  // namespace kbrain
