#pragma once
// The MPI runner's results and its dispatch by backend name (docs/mpi.md). Declared in every build; defined only
// with KBRAIN_ENABLE_MPI (experiments/io_mpi_dispatch.cpp).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/config/experiment_config.hpp"
#include "core/parallel/partition.hpp"
#include "models/olive/olive_plan.hpp"
#include "models/runtime/run_request.hpp"
#include "models/runtime/run_result.hpp"
#include "experiments/program/rank_phase_times.hpp"

namespace kbrain {

struct IoMpiRunResult {
  RunResult run;                     // on rank 0: phase maxima over ranks, merged spikes, total junctions
  std::vector<RankPhaseTimes> ranks; // rank 0 only
  std::string partition;
  std::array<int, 3> grid = {1, 1, 1};
  std::string exchange = "mpi";      // halo exchange that ran: mpi | mpi-staged | peer (HaloExchangeMode)
};

// Collective over MPI_COMM_WORLD. phase_timing: fence and time every phase of the step (docs/mpi.md). exchange:
// auto | mpi | peer (HaloExchange).
IoMpiRunResult run_io_mpi_on(const std::string& backend, Precision precision, const olive::OlivePlan& plan,
                             const RunRequest& request, PartitionChoice choice, bool phase_timing, const std::string& exchange = "auto");

}  // namespace kbrain
