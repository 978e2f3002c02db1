// ComparisonReport: speedups and the compare.md / compare.csv / compare.json writers (formats: docs/output-formats.md).
#include "core/report/comparison_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include "core/text/json.hpp"

namespace kbrain {
namespace {
using text::json_number;
using text::json_string;

constexpr const char* kMissing = "—";        // shown for a value that does not exist (NaN)
constexpr const char* kReducedMarker = "†";  // marks rows that ran fewer steps than requested

bool reduced(const ComparisonRow& row) { return row.steps < row.steps_requested; }

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


void write_text_file(const std::filesystem::path& file, const std::string& text) {
  if (file.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec)
      throw std::runtime_error(
          fmt::format("cannot create directory {}: {}", file.parent_path().string(), ec.message()));
  }
  std::ofstream os(file, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!os) throw std::runtime_error(fmt::format("cannot create {}", file.string()));
  os.write(text.data(), static_cast<std::streamsize>(text.size()));
  os.close();
  if (!os) throw std::runtime_error(fmt::format("writing {} failed", file.string()));
}

}  // namespace

void compute_speedups(ComparisonReport& r) {
  const auto reference_ns = [&r](const ComparisonRow& row, const char* backend) {
    for (const auto& other : r.rows) {
      if (other.backend == backend && other.cells == row.cells && other.size_label == row.size_label &&
          other.precision == row.precision)
        return other.ns_per_cell_step;
    }
    return std::numeric_limits<double>::quiet_NaN();
  };
  const auto ratio = [](double reference, double own) {
    const bool usable = std::isfinite(reference) && std::isfinite(own) && reference > 0 && own > 0;
    return usable ? reference / own : std::numeric_limits<double>::quiet_NaN();
  };
  for (auto& row : r.rows) {
    row.speedup_vs_serial = ratio(reference_ns(row, "serial"), row.ns_per_cell_step);
    row.speedup_vs_openmp = ratio(reference_ns(row, "openmp"), row.ns_per_cell_step);
  }
}

std::string to_markdown(const ComparisonReport& r) {
  fmt::memory_buffer text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "# kbrain compare: {}\n\n", single_line(r.experiment));
  fmt::format_to(out, "- Date: {}\n", single_line(r.date));
  fmt::format_to(out, "- Commit: {}\n", r.commit.empty() ? kMissing : single_line(r.commit));
  fmt::format_to(out, "- Kokkos: {}\n", r.kokkos.empty() ? kMissing : single_line(r.kokkos));
  fmt::format_to(out, "- dt: {} ms\n", r.dt_ms);
  if (!r.command.empty()) fmt::format_to(out, "- Command: `{}`\n", single_line(r.command));

  fmt::format_to(out, "\n## Hardware\n\n");
  if (r.hardware.empty()) fmt::format_to(out, "- (not recorded)\n");
  for (const auto& [backend, description] : r.hardware)
    fmt::format_to(out, "- **{}**: {}\n", single_line(backend), single_line(description));

  fmt::format_to(out, "\n## Results\n\n");
  fmt::format_to(out,
                 "| cells | junctions | backend | precision | steps | setup s | simulate s | output s | ns/cell-step "
                 "| wall s per bio s | × serial | × OpenMP | max \\|ΔV_axon\\| mV | spikes (ref) | note |\n");
  fmt::format_to(out, "|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");

  std::set<std::pair<std::int64_t, std::int64_t>> reductions;  // (steps run, steps requested), sorted
  for (const auto& row : r.rows) {
    const std::string cells =
        row.size_label.empty() ? fmt::format("{}", row.cells) : fmt::format("{} ({})", row.cells, row.size_label);
    std::string steps = fmt::format("{}", row.steps);
    if (reduced(row)) {
      steps += kReducedMarker;
      reductions.emplace(row.steps, row.steps_requested);
    }
    const std::string spikes = row.reference_spikes < 0 ? fmt::format("{}", row.spikes)
                                                        : fmt::format("{} ({})", row.spikes, row.reference_spikes);
    fmt::format_to(out, "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                   markdown_cell(cells), row.junctions, markdown_cell(row.backend), markdown_cell(row.precision),
                   steps, sig3(row.setup_s), sig3(row.simulate_s), sig3(row.output_s), sig3(row.ns_per_cell_step),
                   sig3(row.wall_s_per_bio_s), sig3(row.speedup_vs_serial), sig3(row.speedup_vs_openmp),
                   sig3(row.max_abs_dv_axon), spikes, markdown_cell(row.note));
  }
  if (!reductions.empty()) fmt::format_to(out, "\n");
  for (const auto& [run, requested] : reductions) {
    fmt::format_to(out,
                   "{} run with {} of {} steps (serial budget); times per cell-step are comparable, agreement is "
                   "over the steps run\n",
                   kReducedMarker, run, requested);
  }
  return std::string(text.data(), text.size());
}

void write_csv(const std::filesystem::path& file, const ComparisonReport& r) {
  fmt::memory_buffer text;
  auto out = std::back_inserter(text);
  fmt::format_to(out,
                 "cells,junctions,size_label,backend,precision,steps,steps_requested,setup_s,simulate_s,output_s,"
                 "ns_per_cell_step,wall_s_per_bio_s,speedup_vs_serial,speedup_vs_openmp,max_abs_dv_axon_mV,spikes,"
                 "reference_spikes,note\n");
  for (const auto& row : r.rows) {
    fmt::format_to(out, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", row.cells, row.junctions,
                   csv_field(row.size_label), csv_field(row.backend), csv_field(row.precision), row.steps,
                   row.steps_requested, csv_number(row.setup_s), csv_number(row.simulate_s),
                   csv_number(row.output_s), csv_number(row.ns_per_cell_step), csv_number(row.wall_s_per_bio_s),
                   csv_number(row.speedup_vs_serial), csv_number(row.speedup_vs_openmp),
                   csv_number(row.max_abs_dv_axon), row.spikes,
                   row.reference_spikes < 0 ? std::string() : fmt::format("{}", row.reference_spikes),
                   csv_field(row.note));
  }
  write_text_file(file, std::string(text.data(), text.size()));
}

void write_json(const std::filesystem::path& file, const ComparisonReport& r) {
  fmt::memory_buffer text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "{{\n");
  fmt::format_to(out, "  \"experiment\": {},\n", json_string(r.experiment));
  fmt::format_to(out, "  \"date\": {},\n", json_string(r.date));
  fmt::format_to(out, "  \"commit\": {},\n", json_string(r.commit));
  fmt::format_to(out, "  \"command\": {},\n", json_string(r.command));
  fmt::format_to(out, "  \"kokkos\": {},\n", json_string(r.kokkos));
  fmt::format_to(out, "  \"dt_ms\": {},\n", json_number(r.dt_ms));
  fmt::format_to(out, "  \"hardware\": [");
  for (std::size_t i = 0; i < r.hardware.size(); ++i) {
    fmt::format_to(out, "{}\n    {{\"backend\": {}, \"description\": {}}}", i ? "," : "",
                   json_string(r.hardware[i].first), json_string(r.hardware[i].second));
  }
  fmt::format_to(out, "{}],\n", r.hardware.empty() ? "" : "\n  ");
  fmt::format_to(out, "  \"rows\": [");
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    fmt::format_to(out, "{}\n    {{", i ? "," : "");
    fmt::format_to(out, "\"cells\": {}, \"junctions\": {}, \"size_label\": {}, ", row.cells, row.junctions,
                   json_string(row.size_label));
    fmt::format_to(out, "\"backend\": {}, \"precision\": {}, ", json_string(row.backend), json_string(row.precision));
    fmt::format_to(out, "\"steps\": {}, \"steps_requested\": {}, ", row.steps, row.steps_requested);
    fmt::format_to(out, "\"setup_s\": {}, \"simulate_s\": {}, \"output_s\": {}, ", json_number(row.setup_s),
                   json_number(row.simulate_s), json_number(row.output_s));
    fmt::format_to(out, "\"ns_per_cell_step\": {}, \"wall_s_per_bio_s\": {}, ", json_number(row.ns_per_cell_step),
                   json_number(row.wall_s_per_bio_s));
    fmt::format_to(out, "\"speedup_vs_serial\": {}, \"speedup_vs_openmp\": {}, ", json_number(row.speedup_vs_serial),
                   json_number(row.speedup_vs_openmp));
    fmt::format_to(out, "\"max_abs_dv_axon_mV\": {}, \"spikes\": {}, \"reference_spikes\": {}, ",
                   json_number(row.max_abs_dv_axon), row.spikes,
                   row.reference_spikes < 0 ? std::string("null") : fmt::format("{}", row.reference_spikes));
    fmt::format_to(out, "\"note\": {}}}", json_string(row.note));
  }
  fmt::format_to(out, "{}]\n}}\n", r.rows.empty() ? "" : "\n  ");
  write_text_file(file, std::string(text.data(), text.size()));
}

}  // namespace kbrain
