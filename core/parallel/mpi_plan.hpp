#pragma once
// MPI glue of the communication plan (docs/mpi.md): exchanges the halo requests so each rank learns what to send,
// and builds the distributed-graph communicator of the halo exchange. Only compiled with KBRAIN_ENABLE_MPI.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <mpi.h>

#include "core/parallel/comm_plan.hpp"

namespace kbrain::mpi {

inline void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}

inline int rank(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}
inline int size(MPI_Comm c) {
  int s = 1;
  MPI_Comm_size(c, &s);
  return s;
}

// Fills plan's send side: every rank tells each owner which of its cells it needs (Alltoall of counts, Alltoallv
// of global ids). Collective over `comm`.
inline void exchange_requests(CommPlan& plan, MPI_Comm comm) {
  const int ranks = size(comm);
  std::vector<int> send_counts(ranks, 0), recv_counts(ranks, 0), sdispl(ranks, 0), rdispl(ranks, 0);
  std::vector<std::int64_t> send_ids;
  for (std::size_t k = 0; k < plan.recv_ranks.size(); ++k) {
    if (plan.recv_counts[k] > INT32_MAX) throw std::runtime_error("halo block exceeds 2^31-1 cells");
    send_counts[plan.recv_ranks[k]] = static_cast<int>(plan.recv_counts[k]);
  }
  for (int q = 0, d = 0; q < ranks; ++q) sdispl[q] = d, d += send_counts[q];
  send_ids.assign(plan.global.begin() + plan.owned, plan.global.end());  // grouped by owner, owners ascending
  check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm), "MPI_Alltoall");
  int total = 0;
  for (int q = 0; q < ranks; ++q) rdispl[q] = total, total += recv_counts[q];
  std::vector<std::int64_t> recv_ids(static_cast<std::size_t>(total));
  check(MPI_Alltoallv(send_ids.data(), send_counts.data(), sdispl.data(), MPI_INT64_T, recv_ids.data(),
                      recv_counts.data(), rdispl.data(), MPI_INT64_T, comm),
        "MPI_Alltoallv");
  std::vector<std::pair<int, std::vector<std::int64_t>>> requests;
  for (int q = 0; q < ranks; ++q)
    if (recv_counts[q] > 0)
      requests.emplace_back(q, std::vector<std::int64_t>(recv_ids.begin() + rdispl[q],
                                                         recv_ids.begin() + rdispl[q] + recv_counts[q]));
  set_send_side(plan, requests);
}

// Distributed graph communicator: sources = the ranks we receive halo voltages from, destinations = the ranks we
// send to, in the plan's order (so neighbour-collective buffers follow the plan's blocks). No reordering.
inline MPI_Comm make_halo_graph(const CommPlan& plan, MPI_Comm comm) {
  MPI_Comm graph = MPI_COMM_NULL;
  const std::vector<int> srcs(plan.recv_ranks.begin(), plan.recv_ranks.end());
  const std::vector<int> dsts(plan.send_ranks.begin(), plan.send_ranks.end());
  check(MPI_Dist_graph_create_adjacent(comm, static_cast<int>(srcs.size()), srcs.empty() ? nullptr : srcs.data(),
                                       MPI_UNWEIGHTED, static_cast<int>(dsts.size()),
                                       dsts.empty() ? nullptr : dsts.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph),
        "MPI_Dist_graph_create_adjacent");
  return graph;
}

// The ranks this rank exchanges halo values with in either direction (sources and destinations), ascending.
inline std::vector<int> halo_neighbours(const CommPlan& plan) {
  std::vector<int> n(plan.recv_ranks.begin(), plan.recv_ranks.end());
  n.insert(n.end(), plan.send_ranks.begin(), plan.send_ranks.end());
  std::sort(n.begin(), n.end());
  n.erase(std::unique(n.begin(), n.end()), n.end());
  return n;
}

// Distributed graph communicator with the same neighbours in both directions (the "copies done" tokens of the
// peer exchange: a rank hears from every rank it writes to as well as from every rank that writes to it).
inline MPI_Comm make_symmetric_graph(const std::vector<int>& neighbours, MPI_Comm comm) {
  MPI_Comm graph = MPI_COMM_NULL;
  const int n = static_cast<int>(neighbours.size());
  const int* p = neighbours.empty() ? nullptr : neighbours.data();
  check(MPI_Dist_graph_create_adjacent(comm, n, p, MPI_UNWEIGHTED, n, p, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph),
        "MPI_Dist_graph_create_adjacent");
  return graph;
}

// True when every rank in `peers` (ranks of comm) shares this rank's node (MPI_COMM_TYPE_SHARED).
inline bool on_my_node(const std::vector<int>& peers, MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank(comm), MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  MPI_Group all = MPI_GROUP_NULL, local = MPI_GROUP_NULL;
  MPI_Comm_group(comm, &all);
  MPI_Comm_group(node, &local);
  std::vector<int> translated(peers.size(), MPI_UNDEFINED);
  if (!peers.empty())
    check(MPI_Group_translate_ranks(all, static_cast<int>(peers.size()), peers.data(), local, translated.data()),
          "MPI_Group_translate_ranks");
  MPI_Group_free(&all);
  MPI_Group_free(&local);
  MPI_Comm_free(&node);
  return std::none_of(translated.begin(), translated.end(), [](int r) { return r == MPI_UNDEFINED; });
}

}  // namespace kbrain::mpi
