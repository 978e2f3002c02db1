#pragma once
// Sorts every row of a CSR (keys ascending, values moved along) with one team per row: the row is loaded into team
// scratch with coalesced reads, sorted there by a bitonic network (padded to a power of two with INT32_MAX) and
// written back. Rows longer than the scratch capacity are heap-sorted in place by one thread
// (heap_sort_segment). The result is the same on every backend: keys within a row are distinct (no duplicate
// junctions), so any correct sort gives the same order.
// Why: the gaussian3d fill pass used to heap-sort each row in global memory from one thread per row, with every
// access of a warp in a different row; on an H200 that was 95 % of generating 1M x 1000 (docs/journal/2026-11-22-issue3-pass7.md).
// Used by the two-pass gaussian3d sweep (GPU backends; on the host only in tests), and on GPU backends by mode
// exact and the symmetric lower parts (generate_network.hpp). Host generation keeps one-thread heap sorts (fewer
// comparisons on a CPU).
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "core/network/device_sampling.hpp"

namespace kbrain::netgen {

inline constexpr int kSortRowsCapacity = 2048;  // keys per row sorted in team scratch (8 KiB, + 16 KiB of doubles)

template <class Exec, class Real>
struct SortRowsFunctor {
  using Mem = typename Exec::memory_space;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using ScratchKeys =
      Kokkos::View<std::int32_t*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using ScratchVals = Kokkos::View<Real*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  Kokkos::View<const std::int64_t*, Mem> offsets;  // rows + 1
  Kokkos::View<std::int32_t*, Mem> keys;
  Kokkos::View<Real*, Mem> vals;
  bool with_vals = false;
  int capacity = kSortRowsCapacity;  // a power of two
  Kokkos::View<const std::int64_t*, Mem> lengths;  // if not empty: sort only the first lengths(r) entries of row r

  static std::size_t scratch_bytes(int capacity, bool with_vals) {
    return ScratchKeys::shmem_size(capacity) + (with_vals ? ScratchVals::shmem_size(capacity) : 0);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t row = team.league_rank();
    const std::int64_t begin = offsets(row);
    const int n = static_cast<int>(lengths.extent(0) != 0 ? lengths(row) : offsets(row + 1) - begin);
    if (n <= 1) return;
    if (n > capacity) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() { heap_sort_segment(keys, vals, with_vals, begin, n); });
      return;
    }
    int m = 2;
    while (m < n) m <<= 1;
    ScratchKeys k(team.team_scratch(0), capacity);
    ScratchVals v;
    if (with_vals) v = ScratchVals(team.team_scratch(0), capacity);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m), [&](const int i) {
      k(i) = i < n ? keys(begin + i) : INT32_MAX;
      if (with_vals) v(i) = i < n ? vals(begin + i) : Real(0);
    });
    team.team_barrier();
    // Bitonic network: for each block size, compare-exchange the pairs (lo, lo + stride), ascending where bit `size`
    // of lo is clear; pair p's lo is p with a 0 bit inserted at the stride's position.
    for (int size = 2; size <= m; size <<= 1)
      for (int stride = size >> 1; stride > 0; stride >>= 1) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m >> 1), [&](const int p) {
          const int lo = ((p & ~(stride - 1)) << 1) | (p & (stride - 1)), hi = lo + stride;
          const std::int32_t a = k(lo), b = k(hi);
          if ((a > b) == ((lo & size) == 0)) {
            k(lo) = b;
            k(hi) = a;
            if (with_vals) {
              const Real t = v(lo);
              v(lo) = v(hi);
              v(hi) = t;
            }
          }
        });
        team.team_barrier();
      }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int i) {
      keys(begin + i) = k(i);
      if (with_vals) vals(begin + i) = v(i);
    });
  }
};

// Sorts rows 0 .. offsets.extent(0) - 2 of (keys, vals), or the first lengths(r) entries of each row r when
// lengths is given: 256 threads per team on GPU backends, 1 on the host. capacity: keys sorted in scratch (a power
// of two); longer rows are heap-sorted in place.
template <class Exec, class Real, class Mem = typename Exec::memory_space>
void sort_rows(const Kokkos::View<const std::int64_t*, Mem>& offsets, const Kokkos::View<std::int32_t*, Mem>& keys,
               const Kokkos::View<Real*, Mem>& vals, bool with_vals, int capacity = kSortRowsCapacity,
               const Kokkos::View<const std::int64_t*, Mem>& lengths = {}) {
  const std::int64_t rows = static_cast<std::int64_t>(offsets.extent(0)) - 1;
  if (rows <= 0) return;
  constexpr bool host = std::is_same<typename Exec::memory_space, Kokkos::HostSpace>::value;
  using Functor = SortRowsFunctor<Exec, Real>;
  Kokkos::parallel_for("kbrain::netgen::sort_rows",
                       Kokkos::TeamPolicy<Exec>(rows, host ? 1 : 256)
                           .set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes(capacity, with_vals))),
                       Functor{offsets, keys, vals, with_vals, capacity, lengths});
}

}  // namespace kbrain::netgen
