#pragma once
// The communication plan of one rank (docs/mpi.md), built once before the step loop. Host-only, no MPI.
// build_comm_plan below is the single-threaded host reference (tests, small networks); the MPI runner builds the same
// plan in parallel on its backend, with the rows left in the backend's memory (core/parallel/comm_plan_parallel.hpp).
//
// Input: the partition and the rank's own rows of the network (incoming junctions of its owned cells, global
// source ids, in the single-process order). Output:
//  - local numbering: interior cells (all sources owned) first, then border cells, then the halo (remote cells whose
//    V_dend some owned cell reads), so one step is two contiguous ranges and the halo is one contiguous block;
//  - the rows renumbered to local ids, junction order unchanged (so every gap current is summed in the same order
//    as in the single-process run: bit-identical results);
//  - the halo grouped by owner rank (ascending), ascending global id within an owner: each needed remote voltage
//    appears exactly once, and only voltages some owned cell reads;
//  - the send side (which owned cells' V_dend each neighbour needs, in the neighbour's halo order), filled by
//    set_send_side() from the neighbours' requests (exchanged over MPI, or taken from the other plans in tests).
#include <cstdint>
#include <vector>

#include "core/network/gap_network.hpp"
#include "core/parallel/partition.hpp"

namespace kbrain {

struct CommPlan {
  int rank = 0;
  std::int64_t owned = 0, interior = 0, halo = 0;  // interior <= owned; local ids [owned, owned + halo) = halo
  std::vector<std::int64_t> global;                // global id of each local id (owned + halo entries)

  // Rows of the owned cells in local order, sources as local ids (same junction order as the global rows).
  std::vector<std::int64_t> offsets;  // owned + 1
  std::vector<std::int32_t> sources;
  std::vector<double> conductance;    // empty => constant_conductance
  double constant_conductance = 0;

  // Receive side: halo block k (local ids owned + recv_displs[k] ...) comes from recv_ranks[k].
  std::vector<int> recv_ranks;
  std::vector<std::int64_t> recv_counts, recv_displs;
  // Send side: send_local[send_displs[k] .. + send_counts[k]) are the owned local ids whose V_dend go to
  // send_ranks[k], in that rank's halo order.
  std::vector<int> send_ranks;
  std::vector<std::int64_t> send_counts, send_displs;
  std::vector<std::int32_t> send_local;

  std::int64_t border() const { return owned - interior; }
  std::int64_t local_cells() const { return owned + halo; }
  // Global ids this rank needs from `owner` (its halo block from that rank), in halo order.
  std::vector<std::int64_t> requests_to(int owner) const;
};

// `rows`: the owned cells' incoming junctions (rows.cells == owned.size(), row k = cell owned[k], owned ascending),
// sources global. Throws std::invalid_argument on inconsistent input.
CommPlan build_comm_plan(int rank, const Partition& part, const std::vector<std::int64_t>& owned,
                         const GapNetwork& rows);

// Receive side from the halo (global ids grouped by owner, owners ascending): one block per owner rank.
void set_receive_side(CommPlan& plan, const Partition& part, const std::vector<std::int64_t>& halo_ids);

// requests[k] = (rank q, the global ids q needs from this rank, in q's halo order). Ranks ascending.
void set_send_side(CommPlan& plan, const std::vector<std::pair<int, std::vector<std::int64_t>>>& requests);

// The rows of `targets` (ascending or not) of a host network, as a GapNetwork with targets.size() rows and global
// sources (junction order unchanged).
GapNetwork extract_rows(const GapNetwork& net, const std::vector<std::int64_t>& targets);

// Rows of `targets` of make_mesh2d(rows, cols, g), without building the whole mesh.
GapNetwork mesh2d_rows(std::int64_t rows, std::int64_t cols, double g, const std::vector<std::int64_t>& targets);

}  // namespace kbrain
