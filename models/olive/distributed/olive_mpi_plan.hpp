#pragma once
// The plan of a distributed IO run (`kbrain run` under mpirun, docs/mpi.md): the single-process plan and how its
// ranks split and exchange it. Every rank builds the same plan; each then builds only its own part of the network.
// Only compiled with KBRAIN_ENABLE_MPI.
#include <mpi.h>

#include "core/parallel/halo_peer.hpp"
#include "core/parallel/partition.hpp"
#include "models/olive/olive_plan.hpp"

namespace kbrain::olive {

struct OliveMpiPlan : OlivePlan {
  MPI_Comm comm = MPI_COMM_NULL;                       // the ranks of the run
  PartitionChoice partition = PartitionChoice::Auto;   // --partition
  HaloExchange halo_exchange = HaloExchange::Auto;     // --halo-exchange
  bool phase_timing = false;                           // --phase-timing: fence and time every phase of the step
};

}  // namespace kbrain::olive
