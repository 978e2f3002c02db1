#pragma once
// The orders in which the m̄ summands are added (adex_reduce.hpp launches them): a run of entries in index order
// (ordered_add), and a chunk of columns by a tree of lanes (lane_sum, lane_pair). Every backend and every rank count
// performs these additions, so all get the same m̄.
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

// Entry k * stride of a view, so that ordered_add can add every stride-th entry (a chunk's sum at the head of each
// lane row in StepEndTeams' scratch).
template <class V>
struct Strided {
  V v;
  int stride;
  KOKKOS_INLINE_FUNCTION auto operator()(std::int64_t k) const -> decltype(v(0)) { return v(k * stride); }
};

// A chunk's sum (the first level of 6) is a tree of kChunkLanes lanes: lane t adds the chunk's entries t, t + 32,
// t + 64, ... in order, then the lanes' sums are added in pairs, halving (lane t takes lane t + 16's, then t + 8's,
// ..., then lane 0 takes lane 1's). A warp then sums a chunk with coalesced loads and five steps of pairs; the one
// thread adding 256 entries in a row before was bound by issuing them (docs/models/adex-costa.md). Host backends
// perform the same additions in a loop.
inline constexpr int kChunkLanes = 32;
inline constexpr int kEntriesPerLane = int(kColumnsPerChunk / kChunkLanes);
static_assert(kColumnsPerChunk % kChunkLanes == 0, "a chunk's entries are dealt to its lanes evenly");

// Lane t's sum of the chunk's entries [first, first + width): first + t + kChunkLanes q, q ascending, loaded before
// they are added so that a GPU thread waits for one memory latency.
template <class Sums, class Counts>
KOKKOS_INLINE_FUNCTION void lane_sum(const Sums& sums, const Counts& counts, std::int64_t first, std::int64_t width,
                                     int t, double& sum, long long& count) {
  double v[kEntriesPerLane];
  long long n[kEntriesPerLane];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int q = 0; q < kEntriesPerLane; ++q) {
    const std::int64_t e = t + std::int64_t(q) * kChunkLanes;
    v[q] = e < width ? double(sums(first + e)) : 0.0;
    n[q] = e < width ? (long long)(counts(first + e)) : 0;
  }
  double s = 0;
  long long c = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int q = 0; q < kEntriesPerLane; ++q) {
    s += v[q];
    c += n[q];
  }
  sum = s;
  count = c;
}

// One level of the lanes' pairs: lane t (t < half) takes lane t + half's sum and count.
KOKKOS_INLINE_FUNCTION void lane_pair(double* sums, long long* counts, int half, int t) {
  sums[t] += sums[t + half];
  counts[t] += counts[t + half];
}

}  // namespace kbrain::adex
