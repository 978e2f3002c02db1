#pragma once
// Lab only (adex_step_end_probe): the step end's chunk sums by groups of chunks a team, against the product's chunk a
// team (StepEndTeams), for the question bench/README.md leaves open: where grouping pays.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "models/adex_costa/adex_reduce.hpp"

namespace kbrain::adex::probe {

// The chunk sums of the step end (6, first level) by groups of chunks: a team takes `group` neighbouring chunks
// (k = b * chunks + c ascending) and moves them through team scratch a piece of `piece()` entries per chunk at a time:
// all of its threads copy, neighbouring threads reading neighbouring entries of one chunk (coalesced), then each
// thread adds its own chunk's piece in index order to that chunk's running sum, kept in scratch beside the piece.
// chunk_sum's additions, the same bits. In the product for one call (8208eb9, with the columns' currents in the same
// launch): slower at 10 000², faster at 20 000² (bench/README.md, "Dense plastic AdEx step").
template <class Real, class Mem, class Exec>
struct StepEndGroups {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using ScratchSums = typename SumScratch<Exec>::Sums;
  using ScratchCounts = typename SumScratch<Exec>::Counts;
  static constexpr int kScratchEntries = 1024;  // the team's chunks' entries held at once (16 KiB with the counts)
  AdexState<Real, Mem> st;
  int team_size = 32;  // a warp (a host build: 1)
  int group = 32;      // chunks per team

  KOKKOS_INLINE_FUNCTION std::int64_t chunk_count() const { return st.blocks * st.chunks; }
  // Entries of each chunk per piece, and the scratch row of a chunk: the piece and the running sum, one entry more
  // than the piece so that the adding threads' rows start in different banks.
  KOKKOS_INLINE_FUNCTION std::int64_t piece() const {
    const std::int64_t p = kScratchEntries / group;
    return p < kColumnsPerChunk ? p : kColumnsPerChunk;
  }
  KOKKOS_INLINE_FUNCTION std::int64_t stride() const { return piece() + 1; }

  Policy policy() const {
    const std::int64_t chunk_teams = (chunk_count() + group - 1) / group;
    return Policy(int(chunk_teams), team_size)
        .set_scratch_size(0, Kokkos::PerTeam(SumScratch<Exec>::bytes(group * stride())));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t first = std::int64_t(team.league_rank()) * group, P = piece(), row = stride();
    const int n = team.team_size(), lane = team.team_rank();
    const ScratchSums sums(team.team_scratch(0), group * row);
    const ScratchCounts counts(team.team_scratch(0), group * row);
    for (std::int64_t t = lane; t < group; t += n) {  // the running sums
      sums(t * row + P) = 0.0;
      counts(t * row + P) = 0;
    }
    for (std::int64_t e0 = 0; e0 < kColumnsPerChunk; e0 += P) {
      copy_piece(first, e0, lane, n, sums, counts);
      team.team_barrier();
      for (std::int64_t t = lane; t < group; t += n) {
        const std::int64_t k = first + t;
        if (k >= chunk_count()) break;
        const std::int64_t rest = st.chunk_width(k % st.chunks) - e0, w = rest < P ? rest : P;
        double sum = sums(t * row + P);
        long long count = counts(t * row + P);
        for (std::int64_t e = 0; e < w; ++e) {
          sum += sums(t * row + e);
          count += counts(t * row + e);
        }
        sums(t * row + P) = sum;
        counts(t * row + P) = count;
      }
      team.team_barrier();
    }
    for (std::int64_t t = lane; t < group && first + t < chunk_count(); t += n) {
      st.chunk_sum(first + t) = sums(t * row + P);
      st.chunk_count(first + t) = counts(t * row + P);
    }
  }

  // Entries [e0, e0 + piece) of the team's chunks into scratch: each thread takes entries lane, lane + n, ... of every
  // chunk (neighbouring threads, neighbouring entries), walking the chunks' (block, c) from the team's first, and
  // issues the loads of kBatch chunks before their stores.
  static constexpr int kBatch = 8;
  KOKKOS_INLINE_FUNCTION void copy_piece(std::int64_t first, std::int64_t e0, int lane, int n, const ScratchSums& sums,
                                         const ScratchCounts& counts) const {
    const std::int64_t P = piece(), row = stride(), b0 = first / st.chunks, c0 = first - b0 * st.chunks;
    for (std::int64_t e = lane; e < P; e += n) {
      std::int64_t b = b0, c = c0;
      for (std::int64_t t0 = 0; t0 < group; t0 += kBatch) {
        double v[kBatch];
        long long m[kBatch];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int q = 0; q < kBatch; ++q) {
          v[q] = 0.0;
          m[q] = 0;
          if (t0 + q < group && first + t0 + q < chunk_count() && e0 + e < st.chunk_width(c)) {
            const std::int64_t at = b * st.n_post + c * kColumnsPerChunk + e0 + e;
            v[q] = st.msum(at);
            m[q] = st.mcount(at);
          }
          if (++c == st.chunks) {
            c = 0;
            ++b;
          }
        }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int q = 0; q < kBatch; ++q)
          if (t0 + q < group) {
            sums((t0 + q) * row + e) = v[q];
            counts((t0 + q) * row + e) = m[q];
          }
      }
    }
  }
};

}  // namespace kbrain::adex::probe
