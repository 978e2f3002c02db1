#pragma once
// The subcommands of the `kbrain` CLI. Each returns the process exit code; bad input throws ConfigError
// (main prints it and exits with 2).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kbrain {

struct RunOptions {
  std::string experiment, backend, precision, out_dir;
  std::int64_t steps = 0;
  std::int64_t warmup_steps = -1;  // >= 0: in place of [simulation] warmup_steps
  bool no_mesh_kernel = false;
  std::string gap_kernel = "auto";  // auto | fused | split | tiled (CSR networks; io_simulation.hpp)
  std::string partition = "auto";  // under mpirun: auto | blocks | tiles | bricks
  std::int64_t size = 0;           // > 0: network size override (mesh side or cells), as compare --sizes
  double density = 0;              // > 0: junctions per cell override (uniform, gaussian3d), as compare --densities
  std::string variant;             // non-empty: the model's variant setting, as compare --variants
  bool phase_timing = false;       // under mpirun: fence and time every phase of the step (docs/mpi.md)
  std::string halo_exchange = "auto";  // under mpirun: auto | mpi | peer (docs/mpi.md, "Peer exchange")
  double device_budget = -1;       // >= 0: [simulation] device_budget of models that declare it
  bool no_plots = false;           // skip the pictures (cmd_plot.cpp)
  std::int64_t finite_check_every = 1000;  // steps between NaN/inf checks of the state (0: at the end only)
};

struct CompareOptions {
  std::string experiment, out_dir;
  std::vector<std::string> backends, precisions;
  std::vector<std::int64_t> sizes;
  std::vector<double> densities;   // uniform/gaussian3d: overrides the file's compare.densities
  std::vector<std::string> variants;  // values of the model's variant setting (overrides compare.variants)
  std::int64_t steps = 0;
  std::int64_t max_slow_cell_steps = 0;
  // Ranks axis (MPI builds, docs/mpi.md): re-launches `mpiexec -n K kbrain run` for each K and tabulates scaling.
  std::vector<int> ranks;
  // Threads axis: re-launches `OMP_NUM_THREADS=K kbrain compare --backends openmp` for each K (cmd_compare_threads).
  std::vector<int> threads;
  bool weak = false;               // sizes are per rank (weak scaling) instead of total (strong scaling)
  std::string partition = "auto";
  std::string halo_exchange = "auto";  // with --ranks: passed to every `kbrain run` (auto | mpi | peer)
  bool no_plots = false;
  std::int64_t finite_check_every = 1000;  // as RunOptions
  std::string peer;  // another simulator's rows (compare_peer.hpp): "brian2"; empty: none
};

// `kbrain accuracy` (cortex_hh): methods "fe" | "ee" [+eai][+lut][+tpm] against forward Euler at reference_dt.
struct AccuracyOptions {
  std::string experiment, backend = "openmp", precision, out;
  std::vector<std::string> methods = {"fe", "ee", "fe+eai", "fe+lut", "fe+eai+lut", "fe+eai+tpm", "fe+eai+lut+tpm"};
  std::int64_t size = 0;
  double duration_ms = 0, reference_dt = 0.001, window_ms = 2.0, transient_ms = 100.0, early_ms = 100.0;
};

// `kbrain reproduce <study>` (experiments/program/reproduce/): a study's tables beside kbrain's numbers.
struct ReproduceOptions {
  std::string study, scale, out_dir;  // scale: "" (full where a GPU backend is present, else small) | small | full
  std::vector<std::string> backends;  // empty: every backend compiled in
  std::int64_t max_slow_cell_steps = 0;  // 0: each experiment's own serial budget
  std::int64_t steps = 0;                // 0: the scale's steps; else every run's steps (footnoted)
  bool no_plots = false;
};

// `kbrain stats RUN_DIR...` (cmd_stats.cpp): per population the rates, ISI CVs and spike-count correlations over
// [t_min_ms, t_max_ms] (both included), and with several runs the Kolmogorov–Smirnov distances between them.
struct StatsOptions {
  std::vector<std::string> runs;
  std::string out_dir;             // empty: the first run's folder
  double t_min_ms = 500;
  double t_max_ms = 0;             // 0: each run's end
  double bin_ms = 2;
  std::int64_t sample = 250;       // neurons per population for the correlations
  std::uint64_t seed = 12345;      // of that sample
};

int cmd_backends();
int cmd_models();  // experiments/program/cmd_models.cpp
int cmd_accuracy(const AccuracyOptions& o);
int cmd_run(const RunOptions& o);
// `kbrain run` under mpirun (experiments/cmd_run_mpi.cpp; an error in builds without MPI).
int cmd_run_mpi(const RunOptions& o);
int cmd_compare(const CompareOptions& o);
int cmd_reproduce(const ReproduceOptions& o);
int cmd_stats(const StatsOptions& o);
// `kbrain plot DIR` and the pictures at the end of run / compare (cmd_plot.cpp).
int cmd_plot(const std::string& dir);
void draw_pictures(const std::filesystem::path& dir);
// `kbrain compare --ranks ...` (experiments/cmd_compare_ranks.cpp).
int cmd_compare_ranks(const CompareOptions& o);
// `kbrain compare --threads ...` (experiments/program/cmd_compare_threads.cpp).
int cmd_compare_threads(const CompareOptions& o);

}  // namespace kbrain
