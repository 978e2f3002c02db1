// `kbrain stats RUN_DIR [RUN_DIR ...]`: every population's rates, ISI CVs and spike-count correlations over the
// observation window, and with several runs the Kolmogorov–Smirnov distance between each pair of runs
// (spiking/population_metrics.hpp; the PD14 community's accuracy metrics, docs/output-formats.md "kbrain stats").
// Everything is read and computed before anything is written; stats.json is written last, so a folder holding
// stats.json holds the .npy files it names.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "core/config/experiment_config.hpp"
#include "core/recorders/npy_file.hpp"
#include "core/text/atomic_file.hpp"
#include "experiments/program/build_info.hpp"
#include "experiments/program/commands.hpp"
#include "experiments/program/run_folder_spikes.hpp"
#include "experiments/program/stats_report.hpp"

namespace kbrain {
namespace {

namespace fs = std::filesystem;

// The observation window of one run: [--t-min-ms, --t-max-ms or the run's end].
spiking::Window run_window(const StatsOptions& o, const RunFolderSpikes& run) {
  const double end = run.end_ms();
  if (end <= o.t_min_ms)
    throw ConfigError(fmt::format("run {} lasts {} ms, not longer than --t-min-ms {} ms: no observation window",
                                  run.dir.string(), end, o.t_min_ms));
  const double t_max = o.t_max_ms > 0 ? o.t_max_ms : end;
  if (t_max > end)
    throw ConfigError(fmt::format("--t-max-ms {} ms is after the end of run {} ({} ms)", t_max, run.dir.string(), end));
  if (t_max <= o.t_min_ms)
    throw ConfigError(fmt::format("--t-max-ms {} ms is not after --t-min-ms {} ms", t_max, o.t_min_ms));
  return {o.t_min_ms, t_max};
}

// One run's metrics; its spike trains are dropped as each population is done.
StatsRun run_metrics(const StatsOptions& o, RunFolderSpikes in) {
  StatsRun run;
  run.dir = in.dir.string();
  run.spike_file = in.spike_file;
  run.dt_ms = in.dt_ms;
  run.window = run_window(o, in);
  run.bins = spiking::bin_count(run.window, o.bin_ms);
  const spiking::MetricOptions mo{run.window, o.bin_ms, o.sample, o.seed};
  for (std::size_t p = 0; p < in.populations.size(); ++p) {
    RunPopulationSpikes& pop = in.populations[p];
    run.populations.push_back({pop.name, pop.first, pop.size, spiking::population_metrics(pop.trains, mo, p)});
    pop.trains = {};
  }
  return run;
}

// The runs must name the same populations in the same order for their distributions to be compared.
std::string population_names(const StatsRun& r) {
  std::string s;
  for (const auto& p : r.populations) s += (s.empty() ? "" : ",") + p.name;
  return s;
}

// A .npy file whole or not at all: written beside its name, then renamed.
template <class T>
void write_npy_atomically(const fs::path& file, const std::vector<T>& values) {
  fs::path tmp = file;
  tmp += ".tmp";
  write_npy(tmp, values);
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec)
    throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", tmp.string(), file.string(), ec.message()));
}

std::vector<std::int32_t> global_indices(const StatsPopulation& pop) {
  std::vector<std::int32_t> out;
  for (std::int64_t i : pop.metrics.sample) out.push_back(static_cast<std::int32_t>(pop.first + i));
  return out;
}

// The output folder: made if missing; an earlier stats.json and the .npy files of an earlier `kbrain stats` go
// first, so that no stats.json names files of another invocation.
fs::path prepare_output(const StatsOptions& o) {
  const fs::path dir = o.out_dir.empty() ? fs::path(o.runs.front()) : fs::path(o.out_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec))
    throw ConfigError(fmt::format("the output folder (--out) {} cannot be made", dir.string()));
  fs::remove(dir / "stats.json", ec);
  std::vector<fs::path> earlier;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("stats_", 0) == 0 && entry.path().extension() == ".npy") earlier.push_back(entry.path());
  }
  for (const fs::path& file : earlier) fs::remove(file, ec);
  return dir;
}

}  // namespace

int cmd_stats(const StatsOptions& o) {
  StatsResults r;
  r.command = command_line();
  r.t_min_ms = o.t_min_ms;
  r.bin_ms = o.bin_ms;
  r.sample = o.sample;
  r.seed = o.seed;
  // One run in memory at a time: a long run's spike trains are gigabytes, its metrics are not.
  for (const std::string& dir : o.runs) {
    r.runs.push_back(run_metrics(o, read_run_folder_spikes(dir)));
    const StatsRun &run = r.runs.back(), &first = r.runs.front();
    if (population_names(run) != population_names(first))
      throw ConfigError(fmt::format("run {} has the populations {}, run {} has {}: runs compared must have the same",
                                    run.dir, population_names(run), first.dir, population_names(first)));
  }
  if (r.runs.size() >= 2) {
    r.ks.resize(r.runs.front().populations.size());
    for (std::size_t p = 0; p < r.ks.size(); ++p)
      for (std::size_t k = 0; k < kStatsMetrics.size(); ++k)
        for (std::size_t i = 0; i < r.runs.size(); ++i)
          for (std::size_t j = i + 1; j < r.runs.size(); ++j)
            r.ks[p][k].push_back({i, j, spiking::ks_distance(metric_values(r.runs[i].populations[p].metrics, k),
                                                             metric_values(r.runs[j].populations[p].metrics, k))});
  }

  const fs::path out = prepare_output(o);
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    for (const StatsPopulation& pop : r.runs[i].populations) {
      write_npy_atomically(out / stats_file_name(i, pop.name, "sample"), global_indices(pop));
      for (std::size_t k = 0; k < kStatsMetrics.size(); ++k)
        write_npy_atomically(out / stats_file_name(i, pop.name, kStatsMetrics[k]), metric_values(pop.metrics, k));
    }
  }
  text::write_file_atomically(out / "stats.json", stats_json(r));
  fmt::print("{}wrote {}\n", stats_table(r), (out / "stats.json").string());
  return 0;
}

}  // namespace kbrain
