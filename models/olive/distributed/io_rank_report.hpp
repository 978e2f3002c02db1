#pragma once
// What a distributed IO run reports (docs/mpi.md), made on the writing rank from every rank's phase times: the run's
// times (maxima over ranks) and junction total, run.json's partition and exchange fields and numbers, the rows of
// ranks.csv and the printed per-rank tables. Host-only.
#include <string>
#include <vector>

#include "models/olive/distributed/rank_phase_times.hpp"
#include "models/runtime/run_result.hpp"

namespace kbrain::olive {

struct IoRankLayout {
  std::string partition;   // kind and grid, e.g. "tiles 2x1x1"
  std::string exchange;    // the halo exchange that ran: mpi | mpi-staged | peer (halo_exchange_mode_name)
  bool generated = false;  // rows generated on the backend (uniform/gaussian3d): run.json has generate_s
};

// ranks: every rank's times, in rank order. r: its steps and spikes are the run's; the rest is set here.
void report_ranks(RunResult& r, const std::vector<RankPhaseTimes>& ranks, const IoRankLayout& layout);

}  // namespace kbrain::olive
