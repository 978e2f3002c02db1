#pragma once
// The subcommands of the `kbrain` CLI. Each returns the process exit code; bad input throws ConfigError
// (main prints it and exits with 2).
#include <cstdint>
#include <string>
#include <vector>

namespace kbrain {

struct RunOptions {
  std::string experiment, backend, precision, out_dir;
  std::int64_t steps = 0;
  bool no_mesh_kernel = false;
  std::string partition = "auto";  // under mpirun: auto | blocks | tiles | bricks
};

struct CompareOptions {
  std::string experiment, out_dir;
  std::vector<std::string> backends, precisions;
  std::vector<std::int64_t> sizes;
  std::int64_t steps = 0;
  std::int64_t max_slow_cell_steps = 0;
};

int cmd_backends();
int cmd_run(const RunOptions& o);
// `kbrain run` under mpirun (experiments/cmd_run_mpi.cpp; an error in builds without MPI).
int cmd_run_mpi(const RunOptions& o);
int cmd_compare(const CompareOptions& o);

}  // namespace kbrain
