#pragma once
// Per-rank setup of a distributed IO network (docs/mpi.md): the partition, this rank's incoming junctions (generated
// on the backend for its own cells only for uniform/gaussian3d; picked from the host network and copied to the
// backend otherwise), and the communication plan with its send side, built in parallel on the backend (the rows stay
// there). Collective over `comm`. Only compiled with KBRAIN_ENABLE_MPI.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include <mpi.h>

#include "core/network/gap_network.hpp"
#include "core/network/generate_network.hpp"
#include "core/network/random_network.hpp"
#include "core/parallel/comm_plan.hpp"
#include "core/parallel/comm_plan_parallel.hpp"
#include "core/parallel/mpi_plan.hpp"
#include "core/parallel/partition.hpp"

namespace kbrain::olive {

// The partition for a network: `choice` Auto => tiles for a mesh, bricks for gaussian3d, blocks otherwise.
// tiles need a mesh, bricks a gaussian3d lattice (std::invalid_argument otherwise).
inline Partition make_io_partition(const GapNetwork& net, const RandomNetworkTables* generator,
                                   PartitionChoice choice, int ranks) {
  const bool gaussian = generator && generator->spec.kind == RandomNetworkSpec::Kind::Gaussian3d;
  if (choice == PartitionChoice::Auto)
    choice = net.is_mesh() ? PartitionChoice::Tiles2d : gaussian ? PartitionChoice::Bricks3d : PartitionChoice::Blocks;
  const std::int64_t cells = generator ? generator->spec.cells : net.cells;
  switch (choice) {
    case PartitionChoice::Tiles2d:
      if (!net.is_mesh()) throw std::invalid_argument("partition 'tiles' needs a mesh2d network");
      return partition_tiles2d(net.mesh_rows, net.mesh_cols, ranks);
    case PartitionChoice::Bricks3d:
      if (!gaussian) throw std::invalid_argument("partition 'bricks' needs a gaussian3d network");
      return partition_bricks3d(cells, generator->side, ranks);
    default:
      return partition_blocks(cells, ranks);
  }
}

struct RankSetupTimes {
  double generate_s = 0, plan_s = 0;
  std::int64_t junctions = 0;  // this rank's incoming junctions
};

// This rank's communication plan, send side included, and its rows in local order on Mem. `net` is the host network
// (for uniform/gaussian3d only its cell count is used); `generator` non-null for uniform/gaussian3d.
template <class Exec, class Mem = typename Exec::memory_space>
RankPlan<Mem> make_rank_plan(const GapNetwork& net, const RandomNetworkTables* generator, const Partition& part,
                             MPI_Comm comm, RankSetupTimes& times) {
  const int me = mpi::rank(comm);
  if (mpi::size(comm) != part.ranks) throw std::invalid_argument("partition made for another number of ranks");
  const std::vector<std::int64_t> owned = part.owned_cells(me);
  double t0 = MPI_Wtime();
  GeneratedNetwork<double, Mem> rows;  // global sources; double: exact conductances
  if (generator)
    rows = generate_network_rows<Exec, double, Mem>(*generator, owned);
  else if (net.is_mesh() && net.conductance.empty())
    rows = GeneratedNetwork<double, Mem>::from_host(mesh2d_rows(net.mesh_rows, net.mesh_cols, net.constant_conductance, owned));
  else
    rows = GeneratedNetwork<double, Mem>::from_host(extract_rows(net, owned));
  rows.cells = static_cast<std::int64_t>(owned.size());
  Exec().fence();
  times.generate_s = MPI_Wtime() - t0;
  times.junctions = rows.junctions();
  t0 = MPI_Wtime();
  RankPlan<Mem> plan = build_comm_plan_parallel<Exec, Mem>(me, part, owned, rows);
  mpi::exchange_requests(plan.plan, comm);
  times.plan_s = MPI_Wtime() - t0;
  return plan;
}

}  // namespace kbrain::olive
