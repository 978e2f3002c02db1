#include "core/report/spiking_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace kbrain {

namespace {

std::string num(double v, const char* spec = "{:.4g}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : std::string("–");
}
std::string json_num(double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string("null"); }

std::string json_str(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", c);
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string rates(const SpikingComparisonRow& row) {
  std::string s;
  for (const auto& p : row.populations) s += fmt::format("{}{} {:.2f} Hz / {:.2f}", s.empty() ? "" : "; ", p.name,
                                                          p.rate_hz, p.isi_cv);
  return s;
}

void write_file(const std::filesystem::path& file, const std::string& text) {
  std::ofstream f(file);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace

void compute_speedups(SpikingComparisonReport& r) {
  for (auto& row : r.rows)
    for (const auto& other : r.rows) {
      if (other.neurons != row.neurons || other.precision != row.precision || other.wall_s_per_bio_s <= 0) continue;
      if (other.backend == "serial") row.speedup_vs_serial = other.wall_s_per_bio_s / row.wall_s_per_bio_s;
      if (other.backend == "openmp") row.speedup_vs_openmp = other.wall_s_per_bio_s / row.wall_s_per_bio_s;
    }
}

std::string to_markdown(const SpikingComparisonReport& r) {
  fmt::memory_buffer b;
  auto out = std::back_inserter(b);
  fmt::format_to(out, "# {} ({}), dt = {} ms\n\n", r.experiment, r.model, r.dt_ms);
  fmt::format_to(out, "{} · commit {} · {}\n\n", r.date, r.commit, r.kokkos);
  for (const auto& [name, hw] : r.hardware) fmt::format_to(out, "- {}: {}\n", name, hw);
  fmt::format_to(out, "\n| neurons | synapses | backend | precision | steps | setup s | s per bio s | syn. events/s "
                      "| × serial | × OpenMP | rate Hz / ISI CV per population | max Δrate % | max ΔCV % | "
                      "identical spikes | note |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& row : r.rows)
    fmt::format_to(out, "| {} | {} | {} | {} | {}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                   row.neurons, row.synapses, row.backend, row.precision, row.steps,
                   row.steps < row.steps_requested ? fmt::format(" of {}", row.steps_requested) : "",
                   num(row.setup_s, "{:.3f}"), num(row.wall_s_per_bio_s), num(row.synaptic_events_per_s, "{:.3e}"),
                   num(row.speedup_vs_serial, "{:.2f}"), num(row.speedup_vs_openmp, "{:.2f}"), rates(row),
                   num(row.max_rate_diff_pct, "{:.2f}"), num(row.max_cv_diff_pct, "{:.2f}"), row.identical_spikes,
                   row.note);
  fmt::format_to(out, "\nΔ columns: largest relative difference over the populations from serial double "
                      "(same network, same seed).\n");
  return fmt::to_string(b);
}

void write_csv(const std::filesystem::path& file, const SpikingComparisonReport& r) {
  fmt::memory_buffer b;
  auto out = std::back_inserter(b);
  fmt::format_to(out, "neurons,synapses,backend,precision,steps,steps_requested,setup_s,simulate_s,wall_s_per_bio_s,"
                      "synaptic_events_per_s,speedup_vs_serial,speedup_vs_openmp,max_rate_diff_pct,max_cv_diff_pct,"
                      "identical_spikes,populations,note\n");
  for (const auto& row : r.rows)
    fmt::format_to(out, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},\"{}\",\"{}\"\n", row.neurons, row.synapses,
                   row.backend, row.precision, row.steps, row.steps_requested, row.setup_s, row.simulate_s,
                   row.wall_s_per_bio_s, row.synaptic_events_per_s, json_num(row.speedup_vs_serial),
                   json_num(row.speedup_vs_openmp), json_num(row.max_rate_diff_pct), json_num(row.max_cv_diff_pct),
                   row.identical_spikes, rates(row), row.note);
  write_file(file, fmt::to_string(b));
}

void write_json(const std::filesystem::path& file, const SpikingComparisonReport& r) {
  fmt::memory_buffer b;
  auto out = std::back_inserter(b);
  fmt::format_to(out, "{{\n  \"experiment\": {},\n  \"model\": {},\n  \"date\": {},\n  \"commit\": {},\n  \"command\": "
                      "{},\n  \"kokkos\": {},\n  \"dt_ms\": {},\n  \"hardware\": {{",
                 json_str(r.experiment), json_str(r.model), json_str(r.date), json_str(r.commit), json_str(r.command),
                 json_str(r.kokkos), r.dt_ms);
  for (std::size_t k = 0; k < r.hardware.size(); ++k)
    fmt::format_to(out, "{}{}: {}", k ? ", " : "", json_str(r.hardware[k].first), json_str(r.hardware[k].second));
  fmt::format_to(out, "}},\n  \"rows\": [");
  for (std::size_t k = 0; k < r.rows.size(); ++k) {
    const auto& row = r.rows[k];
    fmt::format_to(out, "{}\n    {{\"neurons\": {}, \"synapses\": {}, \"backend\": {}, \"precision\": {}, \"steps\": {}, "
                        "\"steps_requested\": {}, \"setup_s\": {}, \"simulate_s\": {}, \"wall_s_per_bio_s\": {}, "
                        "\"synaptic_events_per_s\": {}, \"speedup_vs_serial\": {}, \"speedup_vs_openmp\": {}, "
                        "\"max_rate_diff_pct\": {}, \"max_cv_diff_pct\": {}, \"identical_spikes\": {}, \"note\": {}, "
                        "\"populations\": [",
                   k ? "," : "", row.neurons, row.synapses, json_str(row.backend), json_str(row.precision), row.steps,
                   row.steps_requested, json_num(row.setup_s), json_num(row.simulate_s),
                   json_num(row.wall_s_per_bio_s), json_num(row.synaptic_events_per_s),
                   json_num(row.speedup_vs_serial), json_num(row.speedup_vs_openmp),
                   json_num(row.max_rate_diff_pct), json_num(row.max_cv_diff_pct), json_str(row.identical_spikes),
                   json_str(row.note));
    for (std::size_t p = 0; p < row.populations.size(); ++p)
      fmt::format_to(out, "{}{{\"name\": {}, \"rate_hz\": {}, \"isi_cv\": {}}}", p ? ", " : "",
                     json_str(row.populations[p].name), json_num(row.populations[p].rate_hz),
                     json_num(row.populations[p].isi_cv));
    fmt::format_to(out, "]}}");
  }
  fmt::format_to(out, "\n  ]\n}}\n");
  write_file(file, fmt::to_string(b));
}

}  // namespace kbrain
