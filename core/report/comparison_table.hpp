#pragma once
// The result of `kbrain compare` for any model: one row per (size, backend, precision) holding the common columns
// (size, backend, precision, steps, speedups, note) and the model's own columns (times, agreement with the reference
// run, ...), written as compare.md / compare.csv / compare.json (formats: docs/output-formats.md). Host-only.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace kbrain {

// One value of a row: a number (NaN = missing: "—" in Markdown, an empty CSV field, null in JSON) or a text.
struct ReportValue {
  double number = std::numeric_limits<double>::quiet_NaN();
  std::string text;
  bool is_text = false;

  static ReportValue num(double v);
  static ReportValue str(std::string s);
  static ReportValue missing() { return {}; }
};

// A model column. Its key must differ from the common keys (size_label, backend, precision, steps, steps_requested,
// speedup_vs_serial, speedup_vs_openmp, note) and from the other columns' keys.
struct ReportColumn {
  std::string key;              // CSV / JSON name, e.g. "simulate_s", "max_abs_dv_axon_mV"
  std::string heading;          // Markdown heading, e.g. "simulate s", "max |ΔV_axon| mV" ('|' is escaped)
  std::string format = "sig3";  // Markdown only: "sig3" | "int" | "text" | "pct" (sig3 followed by " %")
};

struct ComparisonTableRow {
  std::string size_label;  // groups rows for speedups (same size_label and precision)
  std::string backend, precision;
  std::int64_t steps = 0, steps_requested = 0;  // steps < steps_requested => reduced (marked †)
  // Input of compute_speedups, not written by itself: give the table a "simulate_s" column to show it.
  double simulate_s = 0;
  double speedup_vs_serial = std::numeric_limits<double>::quiet_NaN();  // filled by compute_speedups
  double speedup_vs_openmp = std::numeric_limits<double>::quiet_NaN();
  std::vector<ReportValue> values;  // one per column of the table, in order
  std::string note;
};

struct ComparisonTable {
  std::string experiment, model, date, commit, command, kokkos;
  double dt_ms = 0;
  std::vector<std::pair<std::string, std::string>> hardware;  // backend -> description
  std::vector<ReportColumn> columns;                          // the rows' values, in order
  std::vector<ComparisonTableRow> rows;
};

// Per row: (time per step of the serial / openmp row with the same size_label and precision) / (this row's), where
// time per step = simulate_s / steps; NaN where there is no such row or a time is not positive and finite.
void compute_speedups(ComparisonTable& t);

// The writers throw std::invalid_argument when a row has not one value per column, a column key is repeated or
// taken by a common column, or (Markdown) a column format is unknown.

// Heading, header list (date, commit, Kokkos, dt, command), hardware list, then the table: size, backend, precision,
// steps († when reduced), the model's columns, "vs serial", "vs OpenMP", note; a footnote per reduction.
std::string to_markdown(const ComparisonTable& t);
// Written to a temporary file in the same folder, then renamed: never a truncated file under the final name.
void write_csv(const std::filesystem::path& file, const ComparisonTable& t);
void write_json(const std::filesystem::path& file, const ComparisonTable& t);

// Computes the speedups, writes the tables and returns the Markdown. complete: <out>/compare.{md,csv,json}, then any
// partial files are removed. Not complete: compare saves after every finished run, so a comparison cut short (a time
// limit, Ctrl-C) still leaves what it measured, in <out>/compare.partial.{md,csv,json}, the Markdown starting with
// "> **Partial:** N rows so far; ..."; an earlier run's complete files are removed first, so that none of them passes
// for this run's.
std::string save_comparison(const std::filesystem::path& out_dir, ComparisonTable& t, bool complete);
// The final tables: saved as complete and printed, naming `shown_dir` (the folder they will be in once the command
// has finished; out_dir if empty).
void publish_comparison(const std::filesystem::path& out_dir, ComparisonTable& t,
                        const std::filesystem::path& shown_dir = {});

}  // namespace kbrain
