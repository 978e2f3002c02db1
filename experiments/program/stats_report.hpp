#pragma once
// What `kbrain stats` found (cmd_stats.cpp), as stats.json and as the tables it prints (docs/output-formats.md).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "spiking/population_metrics.hpp"

namespace kbrain {

// The metrics in the order of every table and file: rates (spikes/s), ISI CVs, spike-count CCs.
inline constexpr std::array<const char*, 3> kStatsMetrics = {"rates", "cvs", "ccs"};
const std::vector<double>& metric_values(const spiking::PopulationMetrics& m, std::size_t metric);

struct StatsPopulation {
  std::string name;
  std::int64_t first = 0, size = 0;
  spiking::PopulationMetrics metrics;  // sample: indices inside the population
};

struct StatsRun {
  std::string dir, spike_file;
  double dt_ms = 0;
  spiking::Window window;
  std::int64_t bins = 0;
  std::vector<StatsPopulation> populations;
};

// D of runs i < j for one population and metric.
struct KsPair {
  std::size_t i = 0, j = 0;
  double d = 0;
};

struct StatsResults {
  std::string command;
  double t_min_ms = 0, bin_ms = 0;
  std::int64_t sample = 0;
  std::uint64_t seed = 0;
  std::vector<StatsRun> runs;
  // With two or more runs: per population (the runs share their names and order), per metric, every pair i < j.
  std::vector<std::array<std::vector<KsPair>, kStatsMetrics.size()>> ks;
};

// The file of run `run`'s population `population`: stats_<run>_<population>_<what>.npy (characters other than
// letters, digits, '-' and '_' in the name become '_').
std::string stats_file_name(std::size_t run, const std::string& population, const std::string& what);

std::string stats_json(const StatsResults& r);
std::string stats_table(const StatsResults& r);

}  // namespace kbrain
