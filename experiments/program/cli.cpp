// The `kbrain` command line: every subcommand and its options (CLI11), filled into the options structs of
// commands.hpp. main.cpp parses and dispatches.
#include "experiments/program/cli.hpp"

#include "core/kokkos_compat.hpp"
#include "experiments/program/cli_checks.hpp"

#include <cstdint>
#include <limits>

namespace kbrain {

using cli_checks::finite_positive;
using cli_checks::integer_in;
using cli_checks::non_empty;

// Upper bounds that keep a mistyped number from starting a run of days or terabytes.
constexpr std::int64_t kMaxSteps = 1000000000000;  // 10^12
constexpr std::int64_t kMaxSize = 10000000000;     // 10^10 cells (or mesh side)

void define_commands(CLI::App& app, CliCommands& c) {
  auto& run = c.run;
  auto& cmp = c.compare;
  auto& acc = c.accuracy;
  c.backends = app.add_subcommand("backends", "List the compiled-in backends and their hardware");

  c.run_cmd = app.add_subcommand("run", "Run one experiment on one backend");
  c.run_cmd->add_option("experiment", run.experiment, "Experiment TOML file")->required();
  c.run_cmd->add_option("--backend,-b", run.backend, "serial | openmp | cuda (default: the file's, else the first)")
      ->check(non_empty());
  c.run_cmd->add_option("--precision,-p", run.precision, "float | double (default: the file's)")
      ->check(CLI::IsMember({"float", "double"}));
  c.run_cmd->add_option("--steps,-n", run.steps, "Override the number of steps")->check(integer_in(1, kMaxSteps));
  c.run_cmd->add_option("--warmup-steps", run.warmup_steps,
                        "Override [simulation] warmup_steps (steps simulated and recorded before the timed ones)")
      ->check(integer_in(0, kMaxSteps));
  c.run_cmd->add_option("--out,-o", run.out_dir, "Output folder (default: out/<experiment name>)")->check(non_empty());
  c.run_cmd->add_flag("--no-mesh-kernel", run.no_mesh_kernel, "Use the CSR kernel for mesh2d networks too");
  c.run_cmd->add_option("--gap-kernel", run.gap_kernel,
                      "Gap currents of CSR networks: auto | fused | split | tiled (gaussian3d); default auto")
      ->check(CLI::IsMember({"auto", "fused", "split", "tiled"}));
  c.run_cmd->add_option("--size", run.size, "Override the network size (mesh side or cells), like compare --sizes")
      ->check(integer_in(1, kMaxSize));
  c.run_cmd->add_option("--density", run.density,
                      "Override the junctions per cell of a uniform or gaussian3d network, like compare --densities")
      ->check(finite_positive());
  c.run_cmd->add_option("--variant", run.variant,
                      "The model's variant setting for this run, like compare --variants (`kbrain models` names it)")
      ->check(non_empty());
  c.run_cmd->add_option("--finite-check-every", run.finite_check_every,
                        "Steps between checks of the state for NaN/inf (default 1000; 0: only at the end). A run "
                        "whose state is not finite stops with an error and is not marked complete")
      ->check(integer_in(0, kMaxSteps));
  c.run_cmd->add_flag("--no-plots", run.no_plots, "Do not draw the pictures (kbrain plot DIR draws them later)");
  c.run_cmd->add_option("--device-budget", run.device_budget,
                        "Bytes of device memory the run may use ([simulation] device_budget; models that declare it)")
      ->check(finite_positive(true));
  c.run_cmd->add_option("--partition", run.partition,
                      "Under mpirun: auto | blocks | tiles (mesh2d) | bricks (gaussian3d); default auto")
      ->check(CLI::IsMember({"auto", "blocks", "tiles", "bricks"}));
  c.run_cmd->add_option("--halo-exchange", run.halo_exchange,
                      "Under mpirun: auto | mpi | peer. peer: device-to-device copies between the ranks' GPUs "
                      "(CUDA IPC, ranks on one node) with MPI tokens; mpi: halo values through MPI; auto: peer where "
                      "possible")
      ->check(CLI::IsMember({"auto", "mpi", "peer"}));
  c.run_cmd->add_flag("--phase-timing", run.phase_timing,
                    "Under mpirun: fence every phase of the step (pack, interior, wait, unpack, border) and report "
                    "per-rank compute and exchange times (same results, slightly slower steps on GPUs)");

  c.compare_cmd = app.add_subcommand("compare", "Run one experiment on several backends and sizes; speedup table");
  c.compare_cmd->add_option("experiment", cmp.experiment, "Experiment TOML file")->required();
  c.compare_cmd->add_option("--backends", cmp.backends, "Comma-separated backends (default: all compiled in)")
      ->delimiter(',')
      ->check(non_empty());
  c.compare_cmd->add_option("--precisions", cmp.precisions, "Comma-separated: float,double")
      ->delimiter(',')
      ->check(CLI::IsMember({"float", "double"}));
  c.compare_cmd->add_option("--sizes", cmp.sizes, "Network sizes (mesh side or cells), comma-separated")
      ->delimiter(',')
      ->check(integer_in(1, kMaxSize));
  c.compare_cmd->add_option("--densities", cmp.densities,
                      "Junctions per cell of uniform/gaussian3d networks, comma-separated (default: the file's "
                      "compare.densities, else its network.density; with --ranks: its network.density)")
      ->delimiter(',')
      ->check(finite_positive());
  c.compare_cmd->add_option("--variants", cmp.variants,
                      "Values of the model's variant setting to compare in one table, comma-separated (default: the "
                      "file's compare.variants; `kbrain models` names each model's variant setting)")
      ->delimiter(',')
      ->check(non_empty());
  c.compare_cmd->add_option("--steps,-n", cmp.steps, "Override the number of steps")->check(integer_in(1, kMaxSteps));
  c.compare_cmd->add_option("--max-slow-cell-steps", cmp.max_slow_cell_steps,
                      "Serial budget in mesh-equivalent cell-steps (cells x steps x max(1, junctions/cell / 8); x threads for OpenMP); beyond it fewer steps run")
      ->check(integer_in(1, std::numeric_limits<std::int64_t>::max()));
  c.compare_cmd->add_option("--out,-o", cmp.out_dir, "Output folder (default: out/<experiment name>/compare)")
      ->check(non_empty());
  c.compare_cmd->add_option("--ranks", cmp.ranks,
                      "MPI builds: rank counts, comma-separated; runs `mpiexec -n K kbrain run --phase-timing` for each "
                      "and prints a scaling table and per-rank phases (one backend, one precision)")
      ->delimiter(',')
      ->check(integer_in(1, 65536));
  c.compare_cmd->add_option("--threads", cmp.threads,
                      "OpenMP thread counts, comma-separated: one `kbrain compare --backends openmp` process per count "
                      "(OMP_NUM_THREADS=K) and a thread-scaling table")
      ->delimiter(',')
      ->check(integer_in(1, kx::kMaxHostThreads));
  c.compare_cmd->add_option("--finite-check-every", cmp.finite_check_every,
                            "Steps between checks of every run's state for NaN/inf (default 1000; 0: at the end)")
      ->check(integer_in(0, kMaxSteps));
  c.compare_cmd->add_option("--peer", cmp.peer,
                            "Another simulator's rows after each size: brian2 (C++ standalone on kbrain's network, "
                            "bench/peers/brian2_peer.py; skipped, with a note, where Brian2 is not importable)")
      ->check(non_empty());
  c.compare_cmd->add_flag("--no-plots", cmp.no_plots, "Do not draw the pictures (kbrain plot DIR draws them later)");
  c.compare_cmd->add_flag("--weak", cmp.weak, "With --ranks: --sizes are per rank (weak scaling); default: total (strong)");
  c.compare_cmd->add_option("--partition", cmp.partition, "With --ranks: auto | blocks | tiles | bricks")
      ->check(CLI::IsMember({"auto", "blocks", "tiles", "bricks"}));
  c.compare_cmd->add_option("--halo-exchange", cmp.halo_exchange, "With --ranks: auto | mpi | peer (see run --halo-exchange)")
      ->check(CLI::IsMember({"auto", "mpi", "peer"}));

  c.accuracy_cmd = app.add_subcommand("accuracy", "cortex_hh: numerical methods against forward Euler at a small dt");
  c.accuracy_cmd->add_option("experiment", acc.experiment, "Experiment TOML file (model.kind = cortex_hh)")->required();
  c.accuracy_cmd->add_option("--backend,-b", acc.backend, "serial | openmp | cuda (default openmp)")->check(non_empty());
  c.accuracy_cmd->add_option("--precision,-p", acc.precision, "float | double for the methods (default: the file's)")
      ->check(CLI::IsMember({"float", "double"}));
  c.accuracy_cmd->add_option("--methods", acc.methods, "fe|ee[+eai][+lut][+tpm][+float], comma-separated")->delimiter(',');
  c.accuracy_cmd->add_option("--size", acc.size, "Neurons (default: the file's)")->check(integer_in(1, kMaxSize));
  c.accuracy_cmd->add_option("--ms", acc.duration_ms, "Biological time in ms (default: the file's steps x dt)")
      ->check(finite_positive());
  c.accuracy_cmd->add_option("--reference-dt", acc.reference_dt, "Reference forward-Euler step in ms (default 0.001)")
      ->check(finite_positive());
  c.accuracy_cmd->add_option("--window", acc.window_ms, "Spike matching window in ms (default 2)")
      ->check(finite_positive());
  c.accuracy_cmd->add_option("--transient", acc.transient_ms, "Rhythm: ignore the first ms (default 100)")
      ->check(finite_positive(true));
  c.accuracy_cmd->add_option("--early", acc.early_ms, "Also match the spikes before this time in ms (default 100)")
      ->check(finite_positive(true));
  c.accuracy_cmd->add_option("--out,-o", acc.out, "Append the markdown table to this file")->check(non_empty());

  c.plot_cmd = app.add_subcommand("plot", "Draw the pictures of a finished output folder (run, compare or reproduce) into DIR/plots");
  c.plot_cmd->add_option("dir", c.plot_dir, "Output folder of kbrain run, compare or reproduce")->required()->check(non_empty());

  auto& rep = c.reproduce;
  c.reproduce_cmd = app.add_subcommand("reproduce", "Run a published study's experiments and write its tables beside kbrain's numbers");
  c.reproduce_cmd->add_option("study", rep.study, "du_nguyen | neofytou | van_der_vlag | wang (experiments/studies), or a recipe .toml")
      ->required()->check(non_empty());
  c.reproduce_cmd->add_option("--scale", rep.scale, "small (minutes on a CPU) | full (the study's sizes); default: full "
                              "where a GPU backend is compiled in, else small")->check(CLI::IsMember({"small", "full"}));
  c.reproduce_cmd->add_option("--backends", rep.backends, "Comma-separated backends to run (default: all compiled in)")
      ->delimiter(',');
  c.reproduce_cmd->add_option("--out,-o", rep.out_dir, "Output folder (default: out/reproduce/<study>_<scale>)")
      ->check(non_empty());
  c.reproduce_cmd->add_option("--max-slow-cell-steps", rep.max_slow_cell_steps,
                              "Serial budget of every run, as compare's option (default: each experiment's own); "
                              "the report marks the shortened runs")
      ->check(integer_in(1, std::numeric_limits<std::int64_t>::max()));
  c.reproduce_cmd->add_option("--steps,-n", rep.steps,
                              "Every run's steps in place of the scale's (times stay per step or per biological "
                              "second; the report says so)")
      ->check(integer_in(1, kMaxSteps));
  c.reproduce_cmd->add_flag("--no-plots", rep.no_plots, "Do not draw the runs' pictures");

  auto& st = c.stats;
  c.stats_cmd = app.add_subcommand("stats", "Spiking runs: per population the rates, ISI CVs and spike-count "
                                             "correlations; with several runs the Kolmogorov-Smirnov distances");
  c.stats_cmd->add_option("runs", st.runs, "Output folders of finished spiking runs (kbrain run)")
      ->required()->check(non_empty());
  c.stats_cmd->add_option("--t-min-ms", st.t_min_ms, "Start of the observation window in ms, included (default 500)")
      ->check(finite_positive(true));
  c.stats_cmd->add_option("--t-max-ms", st.t_max_ms, "End of the observation window in ms, included (default: each "
                                                      "run's end)")->check(finite_positive());
  c.stats_cmd->add_option("--bin-ms", st.bin_ms, "Bin of the spike counts correlated, in ms (default 2)")
      ->check(finite_positive());
  c.stats_cmd->add_option("--sample", st.sample, "Neurons per population whose counts are correlated (default 250, "
                                                  "or the population)")->check(integer_in(2, kMaxSize));
  c.stats_cmd->add_option("--seed", st.seed, "Seed of that sample (default 12345)")
      ->check(integer_in(0, std::numeric_limits<std::int64_t>::max()));
  c.stats_cmd->add_option("--out,-o", st.out_dir, "Folder for stats.json and the .npy files (default: the first run's)")
      ->check(non_empty());

  c.models = app.add_subcommand("models", "List the models: kinds, parameters (unit, bounds, default), variables, options");
}

void check_command_lists(const CliCommands& c) {
  if (*c.reproduce_cmd) cli_checks::require_distinct(c.reproduce.backends, "--backends");
  if (*c.stats_cmd) cli_checks::require_distinct(c.stats.runs, "runs");
  if (!*c.compare_cmd) return;
  const CompareOptions& o = c.compare;
  cli_checks::require_distinct(o.backends, "--backends");
  cli_checks::require_distinct(o.precisions, "--precisions");
  cli_checks::require_distinct(o.sizes, "--sizes");
  cli_checks::require_distinct(o.densities, "--densities");
  cli_checks::require_distinct(o.variants, "--variants");
  cli_checks::require_distinct(o.ranks, "--ranks");
  cli_checks::require_distinct(o.threads, "--threads");
}

}  // namespace kbrain
