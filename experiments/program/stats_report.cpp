// stats.json and the printed tables of `kbrain stats`. Summaries come from spiking::summarize, so the file and the
// tables agree; the raw values are in the .npy files named here.
#include "experiments/program/stats_report.hpp"

#include <cctype>
#include <cmath>
#include <iterator>
#include <utility>

#include <fmt/format.h>

#include "core/text/json.hpp"

namespace kbrain {
namespace {

using text::json_number;
using text::json_string;

// How the correlation sample is drawn, for the record (spiking/population_metrics.hpp: sample_indices).
constexpr const char* kSampling =
    "uniform without replacement: partial Fisher-Yates shuffle, draw i = counter_random_u64(seed, stream = the "
    "population's position, counter = i) (Philox4x32-10, core/rng/counter_rng.hpp) modulo the indices left";

// Mean and population std (ddof 0) of the finite distances; NaN for none.
std::pair<double, double> ks_mean_std(const std::vector<KsPair>& pairs) {
  std::vector<double> d;
  for (const KsPair& p : pairs) d.push_back(p.d);
  const spiking::Summary s = spiking::summarize(d);
  return {s.mean, s.stdev};
}

std::string quantile_key(double q) { return fmt::format("p{}", static_cast<int>(std::lround(q * 100))); }

void summary_json(fmt::memory_buffer& b, const std::vector<double>& values, const std::string& file) {
  const spiking::Summary s = spiking::summarize(values);
  auto out = std::back_inserter(b);
  fmt::format_to(out, "{{\"count\": {}, \"mean\": {}, \"std\": {}", s.count, json_number(s.mean), json_number(s.stdev));
  for (std::size_t q = 0; q < s.quantiles.size(); ++q)
    fmt::format_to(out, ", \"{}\": {}", quantile_key(spiking::kSummaryQuantiles[q]), json_number(s.quantiles[q]));
  fmt::format_to(out, ", \"file\": {}}}", json_string(file));
}

std::string cell(double v, const char* format = "{:.4g}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(format), v) : std::string("—");
}

}  // namespace

const std::vector<double>& metric_values(const spiking::PopulationMetrics& m, std::size_t metric) {
  return metric == 0 ? m.rates : metric == 1 ? m.cvs : m.ccs;
}

std::string stats_file_name(std::size_t run, const std::string& population, const std::string& what) {
  std::string safe = population;
  for (char& c : safe)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  return fmt::format("stats_{}_{}_{}.npy", run, safe, what);
}

std::string stats_json(const StatsResults& r) {
  fmt::memory_buffer b;
  auto out = std::back_inserter(b);
  fmt::format_to(out, "{{\n  \"command\": {},\n  \"t_min_ms\": {},\n  \"bin_ms\": {},\n  \"sample\": {},\n",
                 json_string(r.command), json_number(r.t_min_ms), json_number(r.bin_ms), r.sample);
  fmt::format_to(out, "  \"seed\": {},\n  \"sampling\": {},\n  \"std\": \"population (ddof 0)\",\n  \"quantiles\": [",
                 r.seed, json_string(kSampling));
  for (std::size_t q = 0; q < spiking::kSummaryQuantiles.size(); ++q)
    fmt::format_to(out, "{}{}", q ? ", " : "", json_number(spiking::kSummaryQuantiles[q]));
  fmt::format_to(out, "],\n  \"runs\": [");
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    const StatsRun& run = r.runs[i];
    fmt::format_to(out, "{}\n    {{\"index\": {}, \"dir\": {}, \"spikes\": {}, \"dt_ms\": {}, \"t_min_ms\": {}, "
                   "\"t_max_ms\": {}, \"bins\": {}, \"populations\": [",
                   i ? "," : "", i, json_string(run.dir), json_string(run.spike_file), json_number(run.dt_ms),
                   json_number(run.window.t_min_ms), json_number(run.window.t_max_ms), run.bins);
    for (std::size_t p = 0; p < run.populations.size(); ++p) {
      const StatsPopulation& pop = run.populations[p];
      fmt::format_to(out, "{}\n      {{\"name\": {}, \"first\": {}, \"neurons\": {}, \"sample_file\": {}",
                     p ? "," : "", json_string(pop.name), pop.first, pop.size,
                     json_string(stats_file_name(i, pop.name, "sample")));
      for (std::size_t k = 0; k < kStatsMetrics.size(); ++k) {
        fmt::format_to(out, ",\n       \"{}\": ", kStatsMetrics[k]);
        summary_json(b, metric_values(pop.metrics, k), stats_file_name(i, pop.name, kStatsMetrics[k]));
      }
      fmt::format_to(out, "}}");
    }
    fmt::format_to(out, "]}}");
  }
  fmt::format_to(out, "\n  ],\n  \"ks\": [");
  for (std::size_t p = 0; p < r.ks.size(); ++p) {
    fmt::format_to(out, "{}\n    {{\"population\": {}", p ? "," : "", json_string(r.runs.front().populations[p].name));
    for (std::size_t k = 0; k < kStatsMetrics.size(); ++k) {
      const auto [mean, sd] = ks_mean_std(r.ks[p][k]);
      fmt::format_to(out, ",\n     \"{}\": {{\"mean\": {}, \"std\": {}, \"pairs\": [", kStatsMetrics[k],
                     json_number(mean), json_number(sd));
      for (std::size_t q = 0; q < r.ks[p][k].size(); ++q) {
        const KsPair& pair = r.ks[p][k][q];
        fmt::format_to(out, "{}{{\"i\": {}, \"j\": {}, \"d\": {}}}", q ? ", " : "", pair.i, pair.j,
                       json_number(pair.d));
      }
      fmt::format_to(out, "]}}");
    }
    fmt::format_to(out, "}}");
  }
  fmt::format_to(out, "{}]\n}}\n", r.ks.empty() ? "" : "\n  ");
  return std::string(b.data(), b.size());
}

std::string stats_table(const StatsResults& r) {
  fmt::memory_buffer b;
  auto out = std::back_inserter(b);
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    const StatsRun& run = r.runs[i];
    fmt::format_to(out, "run {}: {} ({}), window [{}, {}] ms, {} bins of {} ms\n", i, run.dir, run.spike_file,
                   run.window.t_min_ms, run.window.t_max_ms, run.bins, r.bin_ms);
    fmt::format_to(out, "  {:<12} {:>9} {:>12} {:>10} {:>9} {:>8} {:>11} {:>9}\n", "population", "neurons",
                   "rate (1/s)", "rate std", "CV mean", "CVs", "CC mean", "CC pairs");
    for (const StatsPopulation& pop : run.populations) {
      const auto rates = spiking::summarize(pop.metrics.rates);
      const auto cvs = spiking::summarize(pop.metrics.cvs);
      const auto ccs = spiking::summarize(pop.metrics.ccs);
      fmt::format_to(out, "  {:<12} {:>9} {:>12} {:>10} {:>9} {:>8} {:>11} {:>9}\n", pop.name, pop.size,
                     cell(rates.mean), cell(rates.stdev), cell(cvs.mean, "{:.3f}"), cvs.count,
                     cell(ccs.mean, "{:.2e}"), ccs.count);
    }
  }
  if (!r.ks.empty()) {
    const std::size_t pairs = r.runs.size() * (r.runs.size() - 1) / 2;
    fmt::format_to(out, "Kolmogorov-Smirnov distance D between runs, mean ± std over {} pair{}\n", pairs,
                   pairs == 1 ? "" : "s");
    fmt::format_to(out, "  {:<12} {:>17} {:>17} {:>17}\n", "population", "rates", "ISI CVs", "CCs");
    for (std::size_t p = 0; p < r.ks.size(); ++p) {
      fmt::format_to(out, "  {:<12}", r.runs.front().populations[p].name);
      for (std::size_t k = 0; k < kStatsMetrics.size(); ++k) {
        const auto [mean, sd] = ks_mean_std(r.ks[p][k]);
        fmt::format_to(out, " {:>17}", fmt::format("{} ± {}", cell(mean, "{:.3f}"), cell(sd, "{:.3f}")));
      }
      fmt::format_to(out, "\n");
    }
  }
  return std::string(b.data(), b.size());
}

}  // namespace kbrain
