#pragma once
// The memory statement of one rank's part of a distributed IO run (`kbrain run` under mpirun): what the rank will
// hold for its own cells, their rows and the halo it reads, stated from the plan and the partition before anything is
// allocated. Every rank's need is gathered (rank_memory_check.hpp) and a part that does not fit is refused on every
// rank, naming the rank and its bytes: a rank that stopped alone would leave the others waiting in a collective.
#include <cstdint>
#include <string>
#include <vector>

namespace kbrain::olive {

// One rank's part of the network, as the plan and the partition give it before the rows are built.
struct RankPart {
  std::int64_t owned = 0;      // cells the rank steps
  std::int64_t junctions = 0;  // their incoming junctions (a generated network's: a high-probability bound)
  std::int64_t halo = 0;       // remote cells read: at most one per junction and no more than the others' cells
};

// What one rank needs and has: on its backend (device) and on its host. On a CPU backend the backend is host
// memory: its bytes are counted on the host and the device pair is left 0.
struct RankNeed {
  RankPart part;
  double device_need = 0, device_available = 0;  // 0 available: unknown, not checked
  double host_need = 0, host_available = 0;      // host_available: this process' (ulimit -v counted)
  // The ranks on one host (the same host_id) share its memory: their host needs add up against what it has
  // available to all its processes (host_shared_available, 0: unknown).
  std::int64_t host_id = 0;
  double host_shared_available = 0;
};

// Bytes of a rank's part beyond the single-process run's items (io_memory_plan.hpp, sized by owned + halo cells and
// the part's junctions): on the backend its rows in double as they are built (offsets, a source and a conductance a
// junction); on the host the communication plan (the local ids' global ids, the rows with local sources, the send
// lists, at most one entry a junction).
double rank_rows_bytes(const RankPart& part);
double rank_comm_plan_bytes(const RankPart& part);

// The refusal for the first rank whose need exceeds what it has available, then for the first host whose ranks'
// host needs together exceed what it has available, or "" when everything fits. `where`: the
// experiment file; `device`: the backend's name and device.
std::string rank_refusal(const std::vector<RankNeed>& ranks, const std::string& where, const std::string& device);

}  // namespace kbrain::olive
