// kbrain — command-line runner: `kbrain backends | run | compare`.
#include <cstdlib>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "backends/registry.hpp"
#include "core/config/experiment_config.hpp"
#include "core/kokkos_compat.hpp"
#include "experiments/program/build_info.hpp"
#include "experiments/program/commands.hpp"
#include "experiments/program/mpi_env.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

int main(int argc, char** argv) {
  kbrain::set_command_line(argc, argv);
  CLI::App app{"kbrain: biophysical neural-network simulation on Serial, OpenMP and CUDA (Kokkos)"};
  app.require_subcommand(1);
  int threads = -1, device = -1;
  app.add_option("--threads", threads, "OpenMP threads (default: OMP_NUM_THREADS / all cores)");
  app.add_option("--device", device, "GPU id for the CUDA backend (default 0)");

  auto* backends = app.add_subcommand("backends", "List the compiled-in backends and their hardware");

  kbrain::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "Run one experiment on one backend");
  run_cmd->add_option("experiment", run.experiment, "Experiment TOML file")->required();
  run_cmd->add_option("--backend,-b", run.backend, "serial | openmp | cuda (default: the file's, else the first)");
  run_cmd->add_option("--precision,-p", run.precision, "float | double (default: the file's)");
  run_cmd->add_option("--steps,-n", run.steps, "Override the number of steps");
  run_cmd->add_option("--out,-o", run.out_dir, "Output folder (default: out/<experiment name>)");
  run_cmd->add_flag("--no-mesh-kernel", run.no_mesh_kernel, "Use the CSR kernel for mesh2d networks too");
  run_cmd->add_option("--gap-kernel", run.gap_kernel,
                      "Gap currents of CSR networks: auto | fused | split | tiled (gaussian3d); default auto")
      ->check(CLI::IsMember({"auto", "fused", "split", "tiled"}));
  run_cmd->add_option("--size", run.size, "Override the network size (mesh side or cells), like compare --sizes");
  run_cmd->add_option("--density", run.density,
                      "Override the junctions per cell of a uniform or gaussian3d network, like compare --densities");
  run_cmd->add_option("--partition", run.partition,
                      "Under mpirun: auto | blocks | tiles (mesh2d) | bricks (gaussian3d); default auto");
  run_cmd->add_option("--halo-exchange", run.halo_exchange,
                      "Under mpirun: auto | mpi | peer. peer: device-to-device copies between the ranks' GPUs "
                      "(CUDA IPC, ranks on one node) with MPI tokens; mpi: halo values through MPI; auto: peer where "
                      "possible")
      ->check(CLI::IsMember({"auto", "mpi", "peer"}));
  run_cmd->add_flag("--phase-timing", run.phase_timing,
                    "Under mpirun: fence every phase of the step (pack, interior, wait, unpack, border) and report "
                    "per-rank compute and exchange times (same results, slightly slower steps on GPUs)");

  kbrain::CompareOptions cmp;
  auto* cmp_cmd = app.add_subcommand("compare", "Run one experiment on several backends and sizes; speedup table");
  cmp_cmd->add_option("experiment", cmp.experiment, "Experiment TOML file")->required();
  cmp_cmd->add_option("--backends", cmp.backends, "Comma-separated backends (default: all compiled in)")->delimiter(',');
  cmp_cmd->add_option("--precisions", cmp.precisions, "Comma-separated: float,double")->delimiter(',');
  cmp_cmd->add_option("--sizes", cmp.sizes, "Network sizes (mesh side or cells), comma-separated")->delimiter(',');
  cmp_cmd->add_option("--densities", cmp.densities,
                      "Junctions per cell of uniform/gaussian3d networks, comma-separated (default: the file's "
                      "compare.densities, else its network.density; with --ranks: its network.density)")
      ->delimiter(',');
  cmp_cmd->add_option("--steps,-n", cmp.steps, "Override the number of steps");
  cmp_cmd->add_option("--max-slow-cell-steps", cmp.max_slow_cell_steps,
                      "Serial budget in mesh-equivalent cell-steps (cells x steps x max(1, junctions/cell / 8); x threads for OpenMP); beyond it fewer steps run");
  cmp_cmd->add_option("--out,-o", cmp.out_dir, "Output folder (default: out/<experiment name>/compare)");
  cmp_cmd->add_option("--ranks", cmp.ranks,
                      "MPI builds: rank counts, comma-separated; runs `mpiexec -n K kbrain run --phase-timing` for each "
                      "and prints a scaling table and per-rank phases (one backend, one precision)")->delimiter(',');
  cmp_cmd->add_flag("--weak", cmp.weak, "With --ranks: --sizes are per rank (weak scaling); default: total (strong)");
  cmp_cmd->add_option("--partition", cmp.partition, "With --ranks: auto | blocks | tiles | bricks");
  cmp_cmd->add_option("--halo-exchange", cmp.halo_exchange, "With --ranks: auto | mpi | peer (see run --halo-exchange)")
      ->check(CLI::IsMember({"auto", "mpi", "peer"}));

  kbrain::AccuracyOptions acc;
  auto* acc_cmd = app.add_subcommand("accuracy", "cortex_hh: numerical methods against forward Euler at a small dt");
  acc_cmd->add_option("experiment", acc.experiment, "Experiment TOML file (model.kind = cortex_hh)")->required();
  acc_cmd->add_option("--backend,-b", acc.backend, "serial | openmp | cuda (default openmp)");
  acc_cmd->add_option("--precision,-p", acc.precision, "float | double for the methods (default: the file's)");
  acc_cmd->add_option("--methods", acc.methods, "fe|ee[+eai][+lut][+tpm][+float], comma-separated")->delimiter(',');
  acc_cmd->add_option("--size", acc.size, "Neurons (default: the file's)");
  acc_cmd->add_option("--ms", acc.duration_ms, "Biological time in ms (default: the file's steps x dt)");
  acc_cmd->add_option("--reference-dt", acc.reference_dt, "Reference forward-Euler step in ms (default 0.001)");
  acc_cmd->add_option("--window", acc.window_ms, "Spike matching window in ms (default 2)");
  acc_cmd->add_option("--transient", acc.transient_ms, "Rhythm: ignore the first ms (default 100)");
  acc_cmd->add_option("--early", acc.early_ms, "Also match the spikes before this time in ms (default 100)");
  acc_cmd->add_option("--out,-o", acc.out, "Append the markdown table to this file");

  CLI11_PARSE(app, argc, argv);

  int code = 0;
  // Under mpirun (MPI build): MPI first; one GPU per rank (node-local rank modulo the GPUs) unless --device is given.
  const bool mpi = kbrain::mpi_start(&argc, &argv);
#if defined(KOKKOS_ENABLE_CUDA)
  if (mpi && device < 0 && kbrain::mpi_local_rank_from_env() >= 0) {
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) == cudaSuccess && gpus > 0) device = kbrain::mpi_local_rank_from_env() % gpus;
  }
#endif
  kbrain::kx::initialize(threads, device);
  std::string error;
  try {
    if (*backends) code = kbrain::cmd_backends();
    else if (*run_cmd) code = kbrain::cmd_run(run);
    else if (*cmp_cmd) code = kbrain::cmd_compare(cmp);
    else if (*acc_cmd) code = kbrain::cmd_accuracy(acc);
  } catch (const kbrain::ConfigError& e) {
    code = 2;
    error = e.what();
  } catch (const kbrain::UnknownBackend& e) {
    code = 2;
    error = e.what();
  } catch (const std::exception& e) {
    code = 1;
    error = e.what();
  }
  if (code != 0 && !error.empty()) {
    if (kbrain::mpi_world_size() > 1) {
      // one rank failed: the others may wait in a collective forever; the message comes from the failing rank
      fmt::print(stderr, "kbrain: error (rank {}): {}\n", kbrain::mpi_world_rank(), error);
      kbrain::mpi_abort(code);
    }
    fmt::print(stderr, "kbrain: error: {}\n", error);
  }
  Kokkos::finalize();
  if (mpi) kbrain::mpi_finish();
  return code;
}
