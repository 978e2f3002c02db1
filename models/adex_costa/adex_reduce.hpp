#pragma once
// The end of a dense AdEx step (adex_kernels.hpp has the rest): the m̄ summands' fixed-order tree (6) and each
// column's current from its winning row (7), in one process and, with the host's part in adex_simulation.hpp, over
// ranks. Every level adds in a fixed order, so every backend and every rank count performs the same additions.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "models/adex_costa/adex_state.hpp"
#include "models/adex_costa/adex_sum_order.hpp"

namespace kbrain::adex {

// 6. The m̄ tree: each chunk of columns by the pairwise tree (adex_sum_order.hpp; the synapse pass has added its
// first levels, each sum group's), then the chunks of a block in order, then the blocks in order. Host backends close
// a step with two launches, StepEnd (chunks, and 7) and StepMean (blocks, m̄); GPUs with one, StepEndTeams.

// Chunk k's sum and count, the tree's last levels over its sum groups: stored, and returned for a caller that adds
// them further (StepEndTeams).
template <class Real, class Mem>
KOKKOS_INLINE_FUNCTION void chunk_sum(const AdexState<Real, Mem>& st, const std::int64_t k, double& sum,
                                      long long& count) {
  const std::int64_t b = k / st.chunks, c = k - b * st.chunks, first = c * kGroupsPerChunk;
  const std::int64_t groups = st.sum_groups - first < kGroupsPerChunk ? st.sum_groups - first : kGroupsPerChunk;
  sum_group_tree(st.msum, st.mcount, b * st.sum_groups + first, groups, sum, count);
  st.chunk_sum(k) = sum;
  st.chunk_count(k) = count;
}

// A team's scratch copy of m̄ summands: sums and their counts, `n` of each.
template <class Exec>
struct SumScratch {
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using Sums = Kokkos::View<double*, typename Exec::scratch_memory_space, Unmanaged>;
  using Counts = Kokkos::View<long long*, typename Exec::scratch_memory_space, Unmanaged>;
  static std::size_t bytes(std::int64_t n) { return Sums::shmem_size(n) + Counts::shmem_size(n); }
};

// The highest block of column j that has a winner (the largest presynaptic index), -1 if none. The blocks' winners
// are loaded kSumBatch at a time from the top: a column without a winner (an unconnected column of `half`) walks every
// block, and one load at a time it would wait for a memory latency per block.
template <class Real, class Mem>
KOKKOS_INLINE_FUNCTION std::int64_t winning_block(const AdexState<Real, Mem>& st, const std::int64_t j) {
  for (std::int64_t top = st.blocks - 1; top >= 0; top -= kSumBatch) {
    int row[kSumBatch];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int q = 0; q < kSumBatch; ++q) row[q] = top - q >= 0 ? st.win_row((top - q) * st.n_post + j) : -1;
    for (int q = 0; q < kSumBatch; ++q)
      if (row[q] >= 0) return top - q;
  }
  return -1;
}

// 7. Each column's current from the winner of the highest block that has one; the column owes the m̄ part if it
// fired.
template <class Real, class Mem>
KOKKOS_INLINE_FUNCTION void column_current(const AdexState<Real, Mem>& st, bool post_updates, const std::int64_t j) {
  const std::int64_t b = winning_block(st, j);
  if (b >= 0) st.I(j) = st.win_I(b * st.n_post + j);
  st.post_prev(j) = post_updates ? st.post_flag(j) : 0;
}

// A step end's league puts `column_teams` teams first that take the columns' currents, a column per thread (each
// column is a chain of dependent loads, so they start with the first wave instead of after the last). Whether
// `team` is one of them (and has done its columns).
template <class Real, class Mem, class Member>
KOKKOS_INLINE_FUNCTION bool column_team_currents(const AdexState<Real, Mem>& st, bool post_updates, const Member& team,
                                                 std::int64_t column_teams) {
  if (team.league_rank() >= column_teams) return false;
  const std::int64_t j = std::int64_t(team.league_rank()) * team.team_size() + team.team_rank();
  if (j < st.n_post) column_current(st, post_updates, j);
  return true;
}

// `currents` false: a multi-rank run, whose columns' currents come from the exchange (LocalWinners, ApplyWinners).
template <class Real, class Mem>
struct StepEnd {
  AdexState<Real, Mem> st;
  bool currents = true, post_updates = true;
  std::int64_t size() const { return std::max(st.blocks * st.chunks, currents ? st.n_post : 0); }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    if (k < st.blocks * st.chunks) {
      double sum;
      long long count;
      chunk_sum(st, k, sum, count);
    }
    if (currents && k < st.n_post) column_current(st, post_updates, k);
  }
};

// GPUs: the whole step end in one launch, StepEnd's and StepMean's additions. A team per row block; its threads take
// a round of the block's chunks at a time (a thread a chunk's last levels, chunk_sum), and one thread adds
// the round's chunk sums in order to the block's sum, kept in team scratch: chunk_sum's and StepMean's block
// additions, the same bits. The team that finishes its block last (blocks_done, counted atomically) adds the blocks'
// sums in order into m̄, as StepMean does, and resets the count; it reads the other teams' sums by atomic loads, which
// see what their fences published. With `currents` false (a multi-rank run) only the chunk and block sums: the
// exchange adds the blocks over the ranks. The columns' currents: teams first in the league (column_team_currents).
// One launch instead of two, and a block's sum waits for no second kernel.
template <class Real, class Mem, class Exec>
struct StepEndTeams {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using ScratchSums = typename SumScratch<Exec>::Sums;
  using ScratchCounts = typename SumScratch<Exec>::Counts;
  // GPUs: a 32 768-column block's chunks in one round; of teams of 32, 128 and 512 threads the fastest at every size
  // measured (bench/README.md, "Dense plastic AdEx step").
  static constexpr int kTeamSize = 128;
  AdexState<Real, Mem> st;
  bool currents = true, post_updates = true;
  int team_size = kTeamSize;  // a round: a chunk a thread (1 on host backends, the tests: a chunk a round)

  KOKKOS_INLINE_FUNCTION std::int64_t column_teams() const {
    return currents ? (st.n_post + team_size - 1) / team_size : 0;
  }

  Policy policy() const {
    return Policy(int(column_teams() + st.blocks), team_size)
        .set_scratch_size(0, Kokkos::PerTeam(SumScratch<Exec>::bytes(team_size + 1)));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t columns = column_teams();
    if (column_team_currents(st, post_updates, team, columns)) return;
    const std::int64_t b = team.league_rank() - columns;
    const int round_size = team.team_size(), running = round_size;  // scratch entry `running`: the block's sum so far
    const ScratchSums sums(team.team_scratch(0), round_size + 1);
    const ScratchCounts counts(team.team_scratch(0), round_size + 1);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      sums(running) = 0.0;
      counts(running) = 0;
    });
    for (std::int64_t c0 = 0; c0 < st.chunks; c0 += round_size) {
      const int round = int(st.chunks - c0 < round_size ? st.chunks - c0 : round_size);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, round), [&](const int w) {
        double sum;
        long long count;
        chunk_sum(st, b * st.chunks + c0 + w, sum, count);
        sums(w) = sum;
        counts(w) = count;
      });
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() {  // the block's chunks in order, continuing its sum
        double sum = sums(running);
        long long count = counts(running);
        ordered_add(sums, counts, 0, round, sum, count);
        sums(running) = sum;
        counts(running) = count;
      });
      team.team_barrier();  // the next round's chunks overwrite this round's sums
    }
    int last = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](int& is_last) {
          st.block_sum(b) = sums(running);
          st.block_count(b) = counts(running);
          is_last = 0;
          if (currents) {
            Kokkos::memory_fence();  // the block's sum is visible before it is counted
            is_last = Kokkos::atomic_fetch_add(&st.blocks_done(0), 1) == int(st.blocks - 1);
          }
        },
        last);
    if (!last) return;
    Kokkos::memory_fence();
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      sums(running) = 0.0;
      counts(running) = 0;
    });
    for (std::int64_t first = 0; first < st.blocks; first += round_size) {
      const int piece = int(st.blocks - first < round_size ? st.blocks - first : round_size);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, piece), [&](const int i) {
        sums(i) = Kokkos::atomic_fetch_add(&st.block_sum(first + i), 0.0);
        counts(i) = Kokkos::atomic_fetch_add(&st.block_count(first + i), 0LL);
      });
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        double sum = sums(running);  // continuing the one sum: the blocks in order
        long long count = counts(running);
        ordered_add(sums, counts, 0, piece, sum, count);
        sums(running) = sum;
        counts(running) = count;
      });
      team.team_barrier();
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      st.mbar(0) = mean_of(sums(running), counts(running));
      st.blocks_done(0) = 0;
    });
  }
};

// The rest of 6, one team: each block's sum over its chunks in order (the team's threads share the blocks), then
// one thread: m̄ over every block in block order. With `mean` false (a multi-rank run, whose m̄ the host sums over
// every rank's blocks) only the block sums. The threads also leave their block sums in team scratch, kPiece blocks at
// a time, and the one thread adds them from there: reading them back from device memory, it would wait for a memory
// latency per batch of them (the A/B is in bench/README.md).
template <class Real, class Mem, class Exec>
struct StepMean {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using ScratchSums = typename SumScratch<Exec>::Sums;
  using ScratchCounts = typename SumScratch<Exec>::Counts;
  static constexpr std::int64_t kPiece = 1024;  // block sums held in scratch at once (16 KiB with their counts)
  AdexState<Real, Mem> st;
  bool mean = true;
  int team_size = 1;
  std::int64_t piece = kPiece;  // smaller in the tests, so that a small network spans several pieces

  // Host backends (the product): one thread. GPUs (tests, and the lab's two-launch step end: the product runs
  // StepEndTeams there): up to kMaxThreads (a thread per block at the studies' sizes, so that each waits for a
  // block's loads once), as many as the kernel's registers allow.
  static constexpr int kMaxThreads = 512;
  static int team_size_for(const AdexState<Real, Mem>& st, bool gpu) {
    if (!gpu) return 1;
    const StepMean probe{st, true, 1, kPiece};
    const int most = probe.policy().team_size_max(probe, Kokkos::ParallelForTag());
    return std::min(kMaxThreads, most);
  }

  Policy policy() const {
    return Policy(1, team_size).set_scratch_size(0, Kokkos::PerTeam(SumScratch<Exec>::bytes(piece + 1)));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const ScratchSums sums(team.team_scratch(0), piece + 1);  // entry `piece`: the running sum over earlier pieces
    const ScratchCounts counts(team.team_scratch(0), piece + 1);
    if (mean)
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        sums(piece) = 0.0;
        counts(piece) = 0;
      });
    for (std::int64_t first = 0; first < st.blocks; first += piece) {
      const std::int64_t last = first + piece < st.blocks ? first + piece : st.blocks;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const std::int64_t b) {
        double sum;
        long long count;
        ordered_sum(st.chunk_sum, st.chunk_count, b * st.chunks, (b + 1) * st.chunks, sum, count);
        st.block_sum(b) = sum;
        st.block_count(b) = count;
        sums(b - first) = sum;
        counts(b - first) = count;
      });
      if (!mean) continue;
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        double sum = sums(piece);  // continuing the one sum: the same additions in block order
        long long count = counts(piece);
        ordered_add(sums, counts, 0, last - first, sum, count);
        sums(piece) = sum;
        counts(piece) = count;
      });
      team.team_barrier();
    }
    if (mean)
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        st.mbar(0) = mean_of(sums(piece), counts(piece));
      });
  }
};

// Multi-rank 7a: this rank's winner of each column (row -1: none), for the exchange.
template <class Real, class Mem>
struct LocalWinners {
  AdexState<Real, Mem> st;
  Kokkos::View<long long*, Mem> rows;
  Kokkos::View<double*, Mem> currents;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t j) const {
    const std::int64_t b = winning_block(st, j);
    rows(j) = b >= 0 ? st.win_row(b * st.n_post + j) : -1;
    currents(j) = b >= 0 ? double(st.win_I(b * st.n_post + j)) : 0.0;
  }
};

// Multi-rank 7b: the exchanged winners set the currents.
template <class Real, class Mem>
struct ApplyWinners {
  AdexState<Real, Mem> st;
  Kokkos::View<const long long*, Mem> rows;
  Kokkos::View<const double*, Mem> currents;
  bool post_updates;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t j) const {
    if (rows(j) >= 0) st.I(j) = Real(currents(j));
    st.post_prev(j) = post_updates ? st.post_flag(j) : 0;
  }
};

}  // namespace kbrain::adex
