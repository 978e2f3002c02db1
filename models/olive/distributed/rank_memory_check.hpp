#pragma once
// Every rank's memory statement, gathered before any rank allocates its part (rank_memory.hpp): a part that does not
// fit is refused on every rank alike. Only compiled with KBRAIN_ENABLE_MPI.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <mpi.h>

#include "core/parallel/mpi_plan.hpp"
#include "core/parallel/partition.hpp"
#include "models/olive/distributed/io_mpi_setup.hpp"
#include "models/olive/distributed/olive_mpi_plan.hpp"
#include "models/olive/distributed/rank_memory.hpp"
#include "backends/host_shared_memory.hpp"
#include "models/runtime/memory_statement.hpp"

namespace kbrain::olive {

// This rank's part of `plan`: its cells from the partition the run will make, their incoming junctions and halo
// (counted in the host network where there is one; for a generated network, its junction bound shared out by cells
// and at most one halo cell a junction).
inline RankPart rank_part_of(const OliveMpiPlan& plan) {
  const GapNetwork& net = *plan.network;
  const Partition part = make_io_partition(net, plan.generator.get(), plan.partition, mpi::size(plan.comm));
  const std::vector<std::int64_t> owned = part.owned_cells(mpi::rank(plan.comm));
  const std::int64_t cells = plan.generator ? plan.generator->spec.cells : net.cells;
  RankPart p;
  p.owned = static_cast<std::int64_t>(owned.size());
  if (plan.generator)
    p.junctions = static_cast<std::int64_t>(std::ceil(double(plan.generator->junction_bound) * double(p.owned) /
                                                      double(std::max<std::int64_t>(1, cells))));
  p.halo = std::min(p.junctions, cells - p.owned);
  if (plan.generator || net.offsets.empty()) return p;
  // a network on the host: its rows say exactly which remote cells the rank reads
  const int me = mpi::rank(plan.comm);
  std::vector<bool> read(std::size_t(cells), false);
  p.junctions = 0;
  p.halo = 0;
  for (const auto c : owned)
    for (auto k = net.offsets[std::size_t(c)]; k < net.offsets[std::size_t(c) + 1]; ++k) {
      const auto source = std::size_t(net.sources[std::size_t(k)]);
      ++p.junctions;
      if (part.owner[source] != me && !read[source]) read[source] = true, ++p.halo;
    }
  return p;
}

// Collective over `comm`: the lowest rank of the ranks that share this rank's memory (one host).
inline std::int64_t host_id_of(MPI_Comm comm) {
  MPI_Comm host = MPI_COMM_NULL;
  mpi::check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, mpi::rank(comm), MPI_INFO_NULL, &host),
             "MPI_Comm_split_type");
  int lowest = mpi::rank(comm);
  mpi::check(MPI_Bcast(&lowest, 1, MPI_INT, 0, host), "MPI_Bcast");  // the host's rank 0 is its lowest (key order)
  MPI_Comm_free(&host);
  return lowest;
}

// Collective over `comm`: throws NotEnoughMemory on every rank, naming the first rank whose need (`mine` on this
// rank) exceeds what it has available, or the first host whose ranks together exceed what it has.
inline void require_every_rank_fits(const RankNeed& mine, const std::string& where, const std::string& device,
                                    MPI_Comm comm) {
  constexpr int kNumbers = 9;
  const std::array<double, kNumbers> own = {double(mine.part.owned), double(mine.part.junctions),
                                            double(mine.part.halo),  mine.device_need,
                                            mine.device_available,   mine.host_need,
                                            mine.host_available,     double(mine.host_id),
                                            mine.host_shared_available};
  std::vector<double> all(std::size_t(kNumbers) * std::size_t(mpi::size(comm)));
  mpi::check(MPI_Allgather(own.data(), kNumbers, MPI_DOUBLE, all.data(), kNumbers, MPI_DOUBLE, comm),
             "MPI_Allgather");
  std::vector<RankNeed> ranks;
  for (std::size_t k = 0; k + kNumbers <= all.size(); k += kNumbers) {
    RankNeed n;
    n.part = {std::int64_t(all[k]), std::int64_t(all[k + 1]), std::int64_t(all[k + 2])};
    n.device_need = all[k + 3];
    n.device_available = all[k + 4];
    n.host_need = all[k + 5];
    n.host_available = all[k + 6];
    n.host_id = std::int64_t(all[k + 7]);
    n.host_shared_available = all[k + 8];
    ranks.push_back(n);
  }
  const std::string refusal = rank_refusal(ranks, where, device);
  if (!refusal.empty()) throw NotEnoughMemory(refusal);
}

}  // namespace kbrain::olive
