#pragma once
// A study's recipe for `kbrain reproduce` (experiments/studies/<study>.toml): its published tables, each a CSV file of
// the study's own numbers, and for every column kbrain reproduces the experiment, backend and precision that measure
// it, at two scales (small: a CPU-only machine in minutes; full: the study's sizes, or the largest that fits).
// Checked like an experiment file: every error names the file, the key and its line (ConfigError, exit 2).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kbrain {

// One column of kbrain's side of a table; `name` is a published column of the CSV or a column only kbrain has.
struct StudyColumn {
  std::string name;
  std::filesystem::path experiment;  // resolved against the recipe's folder
  std::string backend, precision;
};

// A ratio of two columns ("EAI vs Basic GPU" = Basic GPU / GPU EAI), computed from the study's numbers and from
// kbrain's, side by side.
struct StudyRatio {
  std::string name, of, over;
};

struct StudyScale {
  std::vector<std::int64_t> sizes;  // the model's size axis (cells, neurons or mesh side), as compare --sizes
  std::vector<double> densities;    // junctions per cell, as compare --densities (empty: the experiment's)
  std::int64_t steps = 0;           // 0: the experiment's
  double duration_ms = 0;           // > 0: steps = duration / the experiment's dt (experiments differ in dt)
  std::string note;                 // why this scale differs from the study's, printed as a footnote
};

struct StudyTable {
  std::string id, title, unit;
  std::filesystem::path published;  // CSV: '#' provenance lines, a header, one row per published size
  std::string size_key;             // the CSV column of cell counts (matched with kbrain's cells)
  std::string density_key;          // the CSV column of densities ("" when the table has none)
  // What kbrain's cells hold: "wall_s_per_bio_s", "simulate_s" (scaled to per_steps when given), "generate_s" (a
  // network built on the backend), "ns_per_cell_step", "speedup_vs_serial", "speedup_vs_openmp", "largest_cells"
  // (the model's memory planner on the backend present: no run; a table of one row, max_over_sizes = true).
  std::string measure;
  std::int64_t per_steps = 0;
  bool max_over_sizes = false;  // one row: the largest value over kbrain's sizes (the study quotes its maximum)
  std::vector<StudyColumn> columns;
  std::vector<StudyRatio> ratios;
  std::filesystem::path printed_ratios;  // optional CSV: the ratios as the study printed them (keyed by size_key)
  StudyScale small, full;
  const StudyScale& scale(bool full_scale) const { return full_scale ? full : small; }
};

struct StudyRecipe {
  std::filesystem::path source;
  std::string study, title, reference, published_hardware;
  std::vector<StudyTable> tables;
};

inline const std::vector<std::string>& study_measures() {
  static const std::vector<std::string> m = {"wall_s_per_bio_s", "simulate_s", "generate_s", "ns_per_cell_step",
                                             "speedup_vs_serial", "speedup_vs_openmp", "largest_cells"};
  return m;
}

StudyRecipe load_study_recipe(const std::filesystem::path& file);

// `name` is a file ending in .toml, or a study found as <studies>/<name>.toml, where <studies> is ./experiments/studies
// when it exists, else the source tree's. Unknown names list the studies there.
std::filesystem::path find_study_recipe(const std::string& name);

}  // namespace kbrain
