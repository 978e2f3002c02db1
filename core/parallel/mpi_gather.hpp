#pragma once
// Gathers of a partitioned run's results to one rank (docs/mpi.md): every rank's values concatenated in rank order,
// and every rank's spike events merged in (step, cell) order. Collective over `comm`. Only compiled with
// KBRAIN_ENABLE_MPI.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <mpi.h>

#include "core/parallel/mpi_plan.hpp"

namespace kbrain::mpi {

template <class T>
MPI_Datatype datatype() {
  if constexpr (std::is_same<T, double>::value) {
    return MPI_DOUBLE;
  } else if constexpr (std::is_same<T, std::int64_t>::value) {
    return MPI_INT64_T;
  } else {
    static_assert(std::is_same<T, int>::value, "mpi::datatype: int, std::int64_t or double");
    return MPI_INT;
  }
}

// What `root` receives: every rank's values in rank order, with each rank's count and offset (empty elsewhere).
template <class T>
struct Gathered {
  std::vector<T> values;
  std::vector<int> counts, displs;
};

template <class T>
Gathered<T> gather(const std::vector<T>& mine, MPI_Comm comm, int root = 0) {
  const bool at_root = rank(comm) == root;
  const int n = static_cast<int>(mine.size());
  Gathered<T> g;
  if (at_root) {
    g.counts.resize(size(comm));
    g.displs.resize(size(comm));
  }
  check(MPI_Gather(&n, 1, MPI_INT, g.counts.data(), 1, MPI_INT, root, comm), "MPI_Gather");
  int total = 0;
  for (std::size_t q = 0; q < g.counts.size(); ++q) g.displs[q] = total, total += g.counts[q];
  g.values.resize(static_cast<std::size_t>(total));
  check(MPI_Gatherv(mine.data(), n, datatype<T>(), g.values.data(), g.counts.data(), g.displs.data(), datatype<T>(),
                    root, comm),
        "MPI_Gatherv");
  return g;
}

// Every rank's events (step, cell), merged and sorted on `root` (empty elsewhere).
inline std::vector<std::pair<std::int64_t, std::int64_t>> gather_events(
    const std::vector<std::pair<std::int64_t, std::int64_t>>& events, MPI_Comm comm, int root = 0) {
  std::vector<std::int64_t> flat;
  flat.reserve(2 * events.size());
  for (const auto& e : events) flat.push_back(e.first), flat.push_back(e.second);
  const std::vector<std::int64_t> all = gather(flat, comm, root).values;
  std::vector<std::pair<std::int64_t, std::int64_t>> merged;
  merged.reserve(all.size() / 2);
  for (std::size_t k = 0; k + 1 < all.size(); k += 2) merged.emplace_back(all[k], all[k + 1]);
  std::sort(merged.begin(), merged.end());
  return merged;
}

}  // namespace kbrain::mpi
