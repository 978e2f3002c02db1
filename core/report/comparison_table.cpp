// ComparisonTable: speedups, the compare.md / compare.csv / compare.json writers and the partial/complete file set
// (formats: docs/output-formats.md).
#include "core/report/comparison_table.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <system_error>

#include "core/text/atomic_file.hpp"
#include "core/text/json.hpp"

namespace kbrain {

ReportValue ReportValue::num(double v) {
  ReportValue r;
  r.number = v;
  return r;
}

ReportValue ReportValue::str(std::string s) {
  ReportValue r;
  r.text = std::move(s);
  r.is_text = true;
  return r;
}

namespace {
using text::json_number;
using text::json_string;

constexpr const char* kMissing = "—";        // shown for a value that does not exist (NaN)
constexpr const char* kReducedMarker = "†";  // marks rows that ran fewer steps than requested

// The keys every row has, in CSV / JSON order; the model's columns go between steps_requested and speedup_vs_serial.
constexpr const char* kLeadingKeys[] = {"size_label", "backend", "precision", "steps", "steps_requested"};
constexpr const char* kTrailingKeys[] = {"speedup_vs_serial", "speedup_vs_openmp", "note"};

bool reduced(const ComparisonTableRow& row) { return row.steps < row.steps_requested; }

// Rows with one value per column, column keys unique and not taken by a common column.
void check_shape(const ComparisonTable& t) {
  std::set<std::string> keys(std::begin(kLeadingKeys), std::end(kLeadingKeys));
  keys.insert(std::begin(kTrailingKeys), std::end(kTrailingKeys));
  for (const auto& column : t.columns) {
    if (column.key.empty()) throw std::invalid_argument("comparison table: a column has an empty key");
    if (!keys.insert(column.key).second)
      throw std::invalid_argument(
          fmt::format("comparison table: column key '{}' is repeated or taken by a common column", column.key));
  }
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (t.rows[i].values.size() != t.columns.size())
      throw std::invalid_argument(fmt::format("comparison table: row {} ({} {} {}) has {} values for {} columns", i,
                                              t.rows[i].size_label, t.rows[i].backend, t.rows[i].precision,
                                              t.rows[i].values.size(), t.columns.size()));
  }
}

// ---- Markdown formatting --------------------------------------------------------------------------------------------

// Three significant digits, without exponent for values of 1000 and more; NaN -> "—".
std::string sig3(double v) {
  if (std::isnan(v)) return kMissing;
  if (std::isinf(v)) return v > 0 ? "∞" : "-∞";
  if (std::fabs(v) >= 1000) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

// Line breaks would end a list item or a table row early.
std::string single_line(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return out;
}

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out.push_back(c);
  }
  return single_line(out);
}

enum class Format { sig3, integer, text, pct };

Format format_of(const ReportColumn& column) {
  if (column.format == "sig3") return Format::sig3;
  if (column.format == "int") return Format::integer;
  if (column.format == "text") return Format::text;
  if (column.format == "pct") return Format::pct;
  throw std::invalid_argument(fmt::format("comparison table: column '{}' has unknown format '{}' (sig3, int, text, pct)",
                                          column.key, column.format));
}

// A text is shown as it is whatever the column's format; a number by the format (a "text" column shows it as sig3).
std::string markdown_value(const ReportValue& value, Format format) {
  if (value.is_text) return markdown_cell(value.text);
  if (std::isnan(value.number)) return kMissing;
  switch (format) {
    case Format::integer: return std::isfinite(value.number) ? fmt::format("{:.0f}", value.number) : sig3(value.number);
    case Format::pct: return sig3(value.number) + " %";
    case Format::sig3:
    case Format::text: break;
  }
  return sig3(value.number);
}

// ---- CSV / JSON formatting ------------------------------------------------------------------------------------------

// RFC 4180: quote fields holding separators, quotes or line breaks; double the quotes inside.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}
// Shortest round-trip decimal; NaN/inf -> empty field.
std::string csv_number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); }

std::string csv_value(const ReportValue& v) { return v.is_text ? csv_field(v.text) : csv_number(v.number); }
std::string json_value(const ReportValue& v) { return v.is_text ? json_string(v.text) : json_number(v.number); }


void remove_file(const std::filesystem::path& file) {
  std::error_code ec;
  std::filesystem::remove(file, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot remove {}: {}", file.string(), ec.message()));
}

}  // namespace

void compute_speedups(ComparisonTable& t) {
  const auto time_per_step = [](const ComparisonTableRow& row) {
    return row.steps > 0 ? row.simulate_s / static_cast<double>(row.steps) : std::numeric_limits<double>::quiet_NaN();
  };
  const auto reference = [&](const ComparisonTableRow& row, const char* backend) {
    for (const auto& other : t.rows) {
      if (other.backend == backend && other.size_label == row.size_label && other.precision == row.precision)
        return time_per_step(other);
    }
    return std::numeric_limits<double>::quiet_NaN();
  };
  const auto ratio = [](double reference_s, double own_s) {
    const bool usable = std::isfinite(reference_s) && std::isfinite(own_s) && reference_s > 0 && own_s > 0;
    return usable ? reference_s / own_s : std::numeric_limits<double>::quiet_NaN();
  };
  for (auto& row : t.rows) {
    const double own = time_per_step(row);
    row.speedup_vs_serial = ratio(reference(row, "serial"), own);
    row.speedup_vs_openmp = ratio(reference(row, "openmp"), own);
  }
}

std::string to_markdown(const ComparisonTable& t) {
  check_shape(t);
  std::vector<Format> formats;
  for (const auto& column : t.columns) formats.push_back(format_of(column));

  fmt::memory_buffer text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "# kbrain compare: {}\n\n", single_line(t.experiment));
  if (!t.model.empty()) fmt::format_to(out, "- Model: {}\n", single_line(t.model));
  fmt::format_to(out, "- Date: {}\n", single_line(t.date));
  fmt::format_to(out, "- Commit: {}\n", t.commit.empty() ? kMissing : single_line(t.commit));
  fmt::format_to(out, "- Kokkos: {}\n", t.kokkos.empty() ? kMissing : single_line(t.kokkos));
  if (t.dt_ms > 0) fmt::format_to(out, "- dt: {} ms\n", t.dt_ms);  // 0: steps are not biological time
  if (!t.command.empty()) fmt::format_to(out, "- Command: `{}`\n", single_line(t.command));

  fmt::format_to(out, "\n## Hardware\n\n");
  if (t.hardware.empty()) fmt::format_to(out, "- (not recorded)\n");
  for (const auto& [backend, description] : t.hardware)
    fmt::format_to(out, "- **{}**: {}\n", single_line(backend), single_line(description));

  fmt::format_to(out, "\n## Results\n\n");
  fmt::format_to(out, "| size | backend | precision | steps |");
  for (const auto& column : t.columns) fmt::format_to(out, " {} |", markdown_cell(column.heading));
  fmt::format_to(out, " vs serial | vs OpenMP | note |\n");
  fmt::format_to(out, "|---|---|---|---:|");
  for (const Format format : formats) fmt::format_to(out, "{}", format == Format::text ? "---|" : "---:|");
  fmt::format_to(out, "---:|---:|---|\n");

  std::set<std::pair<std::int64_t, std::int64_t>> reductions;  // (steps run, steps requested), sorted
  for (const auto& row : t.rows) {
    std::string steps = fmt::format("{}", row.steps);
    if (reduced(row)) {
      steps += kReducedMarker;
      reductions.emplace(row.steps, row.steps_requested);
    }
    fmt::format_to(out, "| {} | {} | {} | {} |", markdown_cell(row.size_label), markdown_cell(row.backend),
                   markdown_cell(row.precision), steps);
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      fmt::format_to(out, " {} |", markdown_value(row.values[c], formats[c]));
    fmt::format_to(out, " {} | {} | {} |\n", sig3(row.speedup_vs_serial), sig3(row.speedup_vs_openmp),
                   markdown_cell(row.note));
  }
  if (!reductions.empty()) fmt::format_to(out, "\n");
  for (const auto& [run, requested] : reductions) {
    fmt::format_to(out,
                   "{} run with {} of {} steps (serial budget); times per step are comparable, agreement is over the "
                   "steps run\n",
                   kReducedMarker, run, requested);
  }
  return std::string(text.data(), text.size());
}

void write_csv(const std::filesystem::path& file, const ComparisonTable& t) {
  check_shape(t);
  fmt::memory_buffer text;
  auto out = std::back_inserter(text);
  std::string header;
  for (const char* key : kLeadingKeys) header += std::string(header.empty() ? "" : ",") + key;
  for (const auto& column : t.columns) header += "," + csv_field(column.key);
  for (const char* key : kTrailingKeys) header += std::string(",") + key;
  fmt::format_to(out, "{}\n", header);
  for (const auto& row : t.rows) {
    fmt::format_to(out, "{},{},{},{},{}", csv_field(row.size_label), csv_field(row.backend), csv_field(row.precision),
                   row.steps, row.steps_requested);
    for (const auto& value : row.values) fmt::format_to(out, ",{}", csv_value(value));
    fmt::format_to(out, ",{},{},{}\n", csv_number(row.speedup_vs_serial), csv_number(row.speedup_vs_openmp),
                   csv_field(row.note));
  }
  kbrain::text::write_file_atomically(file, std::string(text.data(), text.size()));
}

void write_json(const std::filesystem::path& file, const ComparisonTable& t) {
  check_shape(t);
  fmt::memory_buffer text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "{{\n");
  fmt::format_to(out, "  \"experiment\": {},\n", json_string(t.experiment));
  fmt::format_to(out, "  \"model\": {},\n", json_string(t.model));
  fmt::format_to(out, "  \"date\": {},\n", json_string(t.date));
  fmt::format_to(out, "  \"commit\": {},\n", json_string(t.commit));
  fmt::format_to(out, "  \"command\": {},\n", json_string(t.command));
  fmt::format_to(out, "  \"kokkos\": {},\n", json_string(t.kokkos));
  fmt::format_to(out, "  \"dt_ms\": {},\n", json_number(t.dt_ms));
  fmt::format_to(out, "  \"hardware\": [");
  for (std::size_t i = 0; i < t.hardware.size(); ++i) {
    fmt::format_to(out, "{}\n    {{\"backend\": {}, \"description\": {}}}", i ? "," : "",
                   json_string(t.hardware[i].first), json_string(t.hardware[i].second));
  }
  fmt::format_to(out, "{}],\n", t.hardware.empty() ? "" : "\n  ");
  fmt::format_to(out, "  \"columns\": [");
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    fmt::format_to(out, "{}\n    {{\"key\": {}, \"heading\": {}, \"format\": {}}}", i ? "," : "",
                   json_string(t.columns[i].key), json_string(t.columns[i].heading),
                   json_string(t.columns[i].format));
  }
  fmt::format_to(out, "{}],\n", t.columns.empty() ? "" : "\n  ");
  fmt::format_to(out, "  \"rows\": [");
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const auto& row = t.rows[i];
    fmt::format_to(out, "{}\n    {{", i ? "," : "");
    fmt::format_to(out, "\"size_label\": {}, \"backend\": {}, \"precision\": {}, ", json_string(row.size_label),
                   json_string(row.backend), json_string(row.precision));
    fmt::format_to(out, "\"steps\": {}, \"steps_requested\": {}, ", row.steps, row.steps_requested);
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      fmt::format_to(out, "{}: {}, ", json_string(t.columns[c].key), json_value(row.values[c]));
    fmt::format_to(out, "\"speedup_vs_serial\": {}, \"speedup_vs_openmp\": {}, ", json_number(row.speedup_vs_serial),
                   json_number(row.speedup_vs_openmp));
    fmt::format_to(out, "\"note\": {}}}", json_string(row.note));
  }
  fmt::format_to(out, "{}]\n}}\n", t.rows.empty() ? "" : "\n  ");
  kbrain::text::write_file_atomically(file, std::string(text.data(), text.size()));
}

std::string save_comparison(const std::filesystem::path& out_dir, ComparisonTable& t, bool complete) {
  compute_speedups(t);
  std::string md = to_markdown(t);  // first: a malformed table throws before any file is touched
  if (!complete)
    md = fmt::format("> **Partial:** {} rows so far; the comparison is still running or was interrupted.\n\n{}",
                     t.rows.size(), md);
  std::filesystem::create_directories(out_dir);
  constexpr const char* kExtensions[] = {".md", ".csv", ".json"};
  const std::string name = complete ? "compare" : "compare.partial";
  const std::string other = complete ? "compare.partial" : "compare";
  // A partial set first removes an earlier run's complete files (none may pass for this run's); a complete set
  // removes the partial files only once it is written, so an interruption never leaves neither.
  if (!complete)
    for (const char* ext : kExtensions) remove_file(out_dir / (other + ext));
  kbrain::text::write_file_atomically(out_dir / (name + ".md"), md);
  write_csv(out_dir / (name + ".csv"), t);
  write_json(out_dir / (name + ".json"), t);
  if (complete)
    for (const char* ext : kExtensions) remove_file(out_dir / (other + ext));
  return md;
}

void publish_comparison(const std::filesystem::path& out_dir, ComparisonTable& t,
                        const std::filesystem::path& shown_dir) {
  const std::string md = save_comparison(out_dir, t, true);
  fmt::print("{}\n(also written to {}/compare.{{md,csv,json}})\n", md,
             (shown_dir.empty() ? out_dir : shown_dir).string());
  std::fflush(stdout);
}

}  // namespace kbrain
