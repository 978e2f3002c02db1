#pragma once
// Lab only (adex_step_end_probe): the step end as the product ran it before the one-launch StepEndTeams
// (adex_reduce.hpp), for the probe's A/B: the columns' currents (teams first, a column per thread), then a warp-sized
// team per chunk that copies the chunk into team scratch and one thread that adds its 256 entries in index order;
// StepMean followed in a second launch. Other chunk-sum bits than the product's (another order of additions).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "models/adex_costa/adex_reduce.hpp"

namespace kbrain::adex::probe {

template <class Real, class Mem, class Exec>
struct StepEndOrdered {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using ScratchSums = typename SumScratch<Exec>::Sums;
  using ScratchCounts = typename SumScratch<Exec>::Counts;
  AdexState<Real, Mem> st;
  int team_size = 32;  // a warp (a host build: 1)

  KOKKOS_INLINE_FUNCTION std::int64_t column_teams() const { return (st.n_post + team_size - 1) / team_size; }

  Policy policy() const {
    return Policy(int(column_teams() + st.blocks * st.chunks), team_size)
        .set_scratch_size(0, Kokkos::PerTeam(SumScratch<Exec>::bytes(kColumnsPerChunk)));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t columns = column_teams();
    if (column_team_currents(st, true, team, columns)) return;
    const std::int64_t k = team.league_rank() - columns;
    const std::int64_t b = k / st.chunks, c = k - b * st.chunks;
    const std::int64_t first = b * st.n_post + c * kColumnsPerChunk, width = st.chunk_width(c);
    const ScratchSums sums(team.team_scratch(0), kColumnsPerChunk);
    const ScratchCounts counts(team.team_scratch(0), kColumnsPerChunk);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, width), [&](const std::int64_t q) {
      sums(q) = st.msum(first + q);
      counts(q) = st.mcount(first + q);
    });
    team.team_barrier();
    Kokkos::single(Kokkos::PerTeam(team),
                   [&]() { ordered_sum(sums, counts, 0, width, st.chunk_sum(k), st.chunk_count(k)); });
  }
};

}  // namespace kbrain::adex::probe
