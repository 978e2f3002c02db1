#pragma once
// One `kbrain compare` as data: what it sweeps and where it writes. cmd_compare.cpp makes it from the command line;
// `kbrain reproduce` makes one per run of a study and reads the finished table back through `result`.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/config/experiment_config.hpp"
#include "core/report/comparison_table.hpp"
#include "experiments/program/commands.hpp"

namespace kbrain {

struct CompareSweep {
  std::vector<std::string> backends;
  std::vector<Precision> precisions;
  std::vector<std::int64_t> sizes;    // 0: the file's
  std::vector<double> densities;      // 0: the file's
  std::vector<std::string> variants;  // "": the file's value of the model's variant setting
  std::int64_t steps = 0;             // 0: the file's
  std::int64_t budget = 0;            // slow-backend budget in mesh-equivalent cell-steps
  std::int64_t finite_check_every = 1000;  // RunRequest::finite_check_every
  std::filesystem::path out_dir;    // where the tables are written while it runs
  std::filesystem::path target;     // where they are once it has finished (output_folder_command.hpp)
  ComparisonTable* result = nullptr;  // given: receives the finished table (kbrain reproduce reads it)
  std::string peer;                 // another simulator's rows after each size (compare_peer.hpp); empty: none
  int peer_threads = 1;             // its threads: the OpenMP backend's when compared, else 1
};

// The sweep of `kbrain compare` options over an experiment: backends (checked against this build), precisions, sizes,
// densities, variants, steps, budget and target folder; ConfigError for bad options.
CompareSweep make_compare_sweep(const CompareOptions& o, const ExperimentConfig& cfg);
// Runs the sweep (writing its tables into sweep.out_dir) for the experiment's model; the exit code.
int run_compare_sweep(const ExperimentConfig& cfg, const CompareSweep& sweep);

}  // namespace kbrain
