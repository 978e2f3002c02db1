#pragma once
// The orders in which the m̄ summands are added (the synapse pass and adex_reduce.hpp perform them): a run of
// entries in index order (ordered_add), and a chunk of columns by a pairwise tree (pairwise_tree, sum_group_tree).
// Every backend and every rank count performs these additions, so all get the same m̄.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "models/adex_costa/adex_state.hpp"

namespace kbrain::adex {

// Sum and count of entries [first, last) of (sums, counts), in index order. The running sums live in registers and
// are written once: `sum` and `count` are often elements of device arrays, and a running sum kept there would make
// every addition wait for the store of the last one and for the next load (the compiler must assume they overlap).
// The entries are loaded kSumBatch at a time before they are added (in order), so that a GPU thread waits for one
// memory latency per batch (a partial last batch included) instead of one per entry.
inline constexpr int kSumBatch = 16;

// Adds entries [first, last) of (sums, counts) to (sum, count), one by one in index order; sum and count are the
// caller's registers.
template <class Sums, class Counts>
KOKKOS_INLINE_FUNCTION void ordered_add(const Sums& sums, const Counts& counts, std::int64_t first, std::int64_t last,
                                        double& sum, long long& count) {
  for (std::int64_t k = first; k < last; k += kSumBatch) {
    const std::int64_t rest = last - k;  // the last batch may be partial: its loads are still issued together
    double v[kSumBatch];
    long long n[kSumBatch];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int q = 0; q < kSumBatch; ++q)
      if (q < rest) {
        v[q] = sums(k + q);
        n[q] = counts(k + q);
      }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int q = 0; q < kSumBatch; ++q)
      if (q < rest) {
        sum += v[q];
        count += n[q];
      }
  }
}

template <class Sums, class Counts>
KOKKOS_INLINE_FUNCTION void ordered_sum(const Sums& sums, const Counts& counts, std::int64_t first, std::int64_t last,
                                        double& sum, long long& count) {
  double s = 0;
  long long c = 0;
  ordered_add(sums, counts, first, last, s, c);
  sum = s;
  count = c;
}

// m̄ from the sum and count of its summands: 0 when there are none.
KOKKOS_INLINE_FUNCTION double mean_of(double sum, long long count) { return count > 0 ? sum / double(count) : 0.0; }

// A chunk's sum (the first level of 6) is the pairwise tree over its kColumnsPerChunk columns: at level h = 1, 2, 4,
// ..., 128 the node of columns [m, m + 2h) adds the node [m + h, m + 2h) to the node [m, m + h) (a column past the
// last one counts +0, which every sum keeps exactly, since the summands are not negative). The synapse pass adds the
// first five levels, a sum group of kColumnsPerSumGroup columns (adex_state.hpp), where its threads hold the
// columns: on GPUs the lanes of a warp by exchanging registers, so that a row block stores one sum per 32 columns
// instead of one per column; on CPUs the same additions in a loop. The step end adds the last three levels
// (sum_group_tree over a chunk's groups). Addition commutes, so a lane that adds its partner's node to its own gets
// the same bits as the partner adding the other way round: the warp's exchange and the loop add the same pairs.
inline constexpr int kGroupsPerChunk = int(kColumnsPerChunk / kColumnsPerSumGroup);
static_assert(kColumnsPerChunk % kColumnsPerSumGroup == 0, "a chunk is whole sum groups");

// The pairwise tree over n (a power of two) nodes in place: node 0 ends with the sum of all, by the levels above.
template <int N>
KOKKOS_FORCEINLINE_FUNCTION void pairwise_tree(double* sums, long long* counts) {
  static_assert(N >= 1 && (N & (N - 1)) == 0, "a pairwise tree's leaves are a power of two");
  for (int h = 1; h < N; h *= 2)
    for (int m = 0; m < N; m += 2 * h) {
      sums[m] += sums[m + h];
      counts[m] += counts[m + h];
    }
}

// The tree's last levels: the chunk's sum from the sums of its groups [first_group, first_group + groups) (groups
// past `groups` count +0), loaded before they are added so that a GPU thread waits for one memory latency.
template <class Sums, class Counts>
KOKKOS_INLINE_FUNCTION void sum_group_tree(const Sums& sums, const Counts& counts, std::int64_t first_group,
                                           std::int64_t groups, double& sum, long long& count) {
  double v[kGroupsPerChunk];
  long long n[kGroupsPerChunk];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int q = 0; q < kGroupsPerChunk; ++q) {
    v[q] = q < groups ? double(sums(first_group + q)) : 0.0;
    n[q] = q < groups ? (long long)(counts(first_group + q)) : 0;
  }
  pairwise_tree<kGroupsPerChunk>(v, n);
  sum = v[0];
  count = n[0];
}

}  // namespace kbrain::adex
