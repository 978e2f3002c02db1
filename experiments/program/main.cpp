// kbrain — command-line runner: `kbrain backends | run | compare | stats | ...`.
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "backends/device_selection.hpp"
#include "backends/registry.hpp"
#include "core/config/experiment_config.hpp"
#include "core/kokkos_compat.hpp"
#include "core/process/stop_signals.hpp"
#include "experiments/program/build_info.hpp"
#include "experiments/program/cli.hpp"
#include "experiments/program/commands.hpp"
#include "experiments/program/mpi_env.hpp"
#include "experiments/program/thread_defaults.hpp"
#include "models/runtime/run_interrupted.hpp"

int main(int argc, char** argv) {
  kbrain::set_command_line(argc, argv);
  CLI::App app{"kbrain: biophysical neural-network simulation on Serial, OpenMP and CUDA (Kokkos)"};
  app.require_subcommand(1);
  int threads = -1, device = -1;
  app.add_option("--threads", threads, "OpenMP threads (default: OMP_NUM_THREADS / all cores)")
      ->check(CLI::Range(1, kbrain::kx::kMaxHostThreads));
  app.add_option("--device", device, "GPU id for the CUDA backend (default 0)")->check(CLI::NonNegativeNumber);

  kbrain::CliCommands cli;
  kbrain::define_commands(app, cli);

  // A command-line mistake is bad input like any other: one line, exit 2 (CLI11's own codes are 100 and up).
  try {
    app.parse(argc, argv);
    kbrain::check_command_lists(cli);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::string message = e.what();
    // No command was recognised and a word was left over: that word is the command the user meant, so name it
    // (CLI11 itself would only say that a subcommand is required).
    const std::vector<std::string> left = app.remaining();
    if (app.get_subcommands().empty() && !left.empty() && !left.front().empty() && left.front()[0] != '-') {
      std::string known;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        known += (known.empty() ? "" : ", ") + sub->get_name();
      message = fmt::format("unknown command '{}' (the commands: {})", left.front(), known);
    }
    fmt::print(stderr, "kbrain: error: {} (kbrain --help lists the commands; kbrain COMMAND --help their options)\n",
               message);
    return 2;
  }
  // A Serial run starts Kokkos' OpenMP backend with one thread: no idle worker spins beside it, and its Views are
  // not initialised by a thread team (--threads still decides where given).
  if (threads <= 0 && *cli.run_cmd && cli.run.backend == "serial") threads = 1;
  threads = kbrain::host_thread_count(threads);
  kbrain::state_default_thread_binding();

  int code = 0;
  // Under mpirun (MPI build): MPI first; one GPU per rank (node-local rank modulo the GPUs) unless --device is given.
  const bool mpi = kbrain::mpi_start(&argc, &argv);
  if (mpi) device = kbrain::choose_device(device, kbrain::mpi_local_rank_from_env());
  kbrain::kx::initialize(threads, device);
  // Ctrl-C, a batch system's SIGTERM or a closed terminal stop a run at the next step with its files kept
  // (core/process/stop_signals.hpp). Not under mpirun: every rank would have to stop at the same step.
  if (!mpi && (*cli.run_cmd || *cli.compare_cmd || *cli.reproduce_cmd)) kbrain::catch_stop_signals();
  std::string error;
  bool interrupted = false;
  try {
    if (*cli.backends) code = kbrain::cmd_backends();
    else if (*cli.models) code = kbrain::cmd_models();
    else if (*cli.run_cmd) code = kbrain::cmd_run(cli.run);
    else if (*cli.compare_cmd) code = kbrain::cmd_compare(cli.compare);
    else if (*cli.accuracy_cmd) code = kbrain::cmd_accuracy(cli.accuracy);
    else if (*cli.plot_cmd) code = kbrain::cmd_plot(cli.plot_dir);
    else if (*cli.reproduce_cmd) code = kbrain::cmd_reproduce(cli.reproduce);
    else if (*cli.stats_cmd) code = kbrain::cmd_stats(cli.stats);
  } catch (const kbrain::RunInterrupted& e) {  // not an error: what the user asked for, said as such
    code = e.exit_code();
    error = e.what();
    interrupted = true;
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
    fmt::print(stderr, "kbrain: {}{}\n", interrupted ? "" : "error: ", error);
  }
  Kokkos::finalize();
  if (mpi) kbrain::mpi_finish();
  return code;
}
