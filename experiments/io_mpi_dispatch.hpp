#pragma once
// The MPI runner's results and its dispatch by backend name (docs/mpi.md). Declared in every build; defined only
// with KBRAIN_ENABLE_MPI (experiments/io_mpi_dispatch.cpp).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/config/experiment_config.hpp"
#include "core/parallel/partition.hpp"
#include "experiments/io_run_plan.hpp"

namespace kbrain {

// One rank's phases (seconds) and sizes.
struct RankPhaseTimes {
  static constexpr int kNumbers = 14;
  int rank = 0;
  double generate_s = 0, plan_s = 0, setup_s = 0, compute_s = 0, exchange_wait_s = 0, pack_post_s = 0,
         output_s = 0, wall_s = 0;
  std::int64_t cells = 0, interior = 0, halo = 0, neighbours = 0, junctions = 0, sent = 0;
};

struct IoMpiRunResult {
  IoRunResult run;                   // on rank 0: phase maxima over ranks, merged spikes, total junctions
  std::vector<RankPhaseTimes> ranks; // rank 0 only
  std::string partition;
  std::array<int, 3> grid = {1, 1, 1};
  bool device_direct = true;         // MPI reads device buffers directly (host backend or CUDA-aware MPI)
};

// Collective over MPI_COMM_WORLD.
IoMpiRunResult run_io_mpi_on(const std::string& backend, Precision precision, const IoRunPlan& plan,
                             PartitionChoice choice);

}  // namespace kbrain
