#pragma once
// The SOM's resident strategy (som_simulation.hpp, SomStrategy::Resident): one launch trains a batch of consecutive
// inputs. Its teams are all resident at once (backends/resident_league.hpp) and each owns a contiguous range of
// neurons. Per input, each team applies the previous input's update to its own neurons and offers their minimum
// distance to the current pixel in partial(input parity, team), then waits at the league barrier; after it, every
// team folds all the teams' minima itself (the order is total: every team finds the same BMU), so one barrier per
// input suffices. Two parities suffice: a team writes input i + 2's slot only after every team has arrived for input
// i + 1, which each does after it has read input i's slots. The batch's last update is applied before the launch
// ends; team 0 folds the digest and keeps the last BMU. The same arithmetic as the other strategies (som_distance,
// som_update; of equal distances the lowest index wins), so host backends train the same bits.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "backends/resident_league.hpp"
#include "models/galbraith_som/som_kernels.hpp"
#include "models/galbraith_som/som_step_kernels.hpp"

namespace kbrain::galbraith {

template <class Real, class Exec>
struct SomTrainResident {
  using Mem = typename Exec::memory_space;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Scratch = typename Exec::scratch_memory_space;
  using Bests = Kokkos::View<SomBest<Real>*, Scratch, Kokkos::MemoryUnmanaged>;

  SomWeights<Real, Mem> w;
  Kokkos::View<const std::uint8_t*, Mem> image;                     // 3 bytes a pixel, BMP file order
  Kokkos::View<SomBest<Real>**, Kokkos::LayoutRight, Mem> partial;  // (input parity, team)
  LeagueBarrier<Mem> barrier;
  Kokkos::View<std::uint64_t, Mem> digest;  // FNV-1a of every BMU so far, in order
  Kokkos::View<std::int32_t, Mem> last;     // the BMU of the last input trained
  Kokkos::View<const double*, Mem> pass_r2;  // the disc's r^2 of each pass, the last one for every later pass
  std::int64_t neurons = 1, pixels = 1, per_team = 1;  // neurons [r * per_team, (r + 1) * per_team) to team r
  std::int64_t first = 0, inputs = 0;                  // the batch: steps first ... first + inputs - 1
  long long rounds_before = 0;                         // the barrier's rounds in earlier launches
  std::int32_t width = 1;
  Real alpha = Real(0.05);
  bool disc = false;
  int half = 2;

  static std::size_t scratch_bytes(int team_size) { return Bests::shmem_size(team_size); }

  // Input k's update of the team's neurons [begin, end) around its BMU.
  KOKKOS_INLINE_FUNCTION void update(const Member& team, std::int64_t begin, std::int64_t end, std::int64_t k,
                                     std::int32_t bmu) const {
    const SomRule rule = som_rule_of_input(k, pixels, disc, half, pass_r2);
    const SomPixel<Real, Mem> owed(image, k % pixels);
    const std::int64_t bx = bmu % width, by = bmu / width;
    for (std::int64_t n = begin + team.team_rank(); n < end; n += team.team_size())
      if (rule.inside(n % width - bx, n / width - by)) (void)som_weights_after(w, n, true, owed, alpha);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    Bests scratch(team.team_scratch(0), team.team_size());
    const int me = team.league_rank(), teams = team.league_size();
    const std::int64_t begin = me * per_team;
    const std::int64_t end = begin + per_team < neurons ? begin + per_team : neurons;
    std::int32_t bmu = -1;  // the previous input's BMU (none at the batch's start: the last batch applied its own)
    for (std::int64_t j = 0; j < inputs; ++j) {
      const std::int64_t k = first + j;
      // the previous input's update, fused with this input's distances (ascending index per thread: of equal
      // distances the lower index is met first)
      const SomRule rule = som_rule_of_input(k > 0 ? k - 1 : 0, pixels, disc, half, pass_r2);
      const SomPixel<Real, Mem> owed(image, k > 0 ? (k - 1) % pixels : 0), current(image, k % pixels);
      const std::int64_t bx = bmu >= 0 ? bmu % width : 0, by = bmu >= 0 ? bmu / width : 0;
      SomBest<Real> mine = SomBest<Real>::none();
      for (std::int64_t n = begin + team.team_rank(); n < end; n += team.team_size()) {
        const SomRgb<Real> c = som_weights_after(w, n, bmu >= 0 && rule.inside(n % width - bx, n / width - by), owed, alpha);
        som_keep_better(mine, SomBest<Real>{som_distance(c.r, c.g, c.b, current), static_cast<std::int32_t>(n)});
      }
      const SomBest<Real> team_best = som_team_minimum(team, scratch, mine);
      Kokkos::single(Kokkos::PerTeam(team), [&]() { partial(k & 1, me) = team_best; });
      barrier.arrive_and_wait(team, rounds_before + j + 1);
      const volatile SomBest<Real>* left = &partial(k & 1, 0);  // written by other teams: not from a cache
      mine = SomBest<Real>::none();
      for (int q = team.team_rank(); q < teams; q += team.team_size())
        som_keep_better(mine, SomBest<Real>{left[q].value, left[q].index});
      const SomBest<Real> input_best = som_team_minimum(team, scratch, mine);
      team.team_barrier();  // the scratch is written again by the next input
      bmu = input_best.index;
      if (me == 0)
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          digest() = som_digest_fold(digest(), bmu);
          last() = bmu;
        });
    }
    if (inputs > 0) update(team, begin, end, first + inputs - 1, bmu);
  }
};

}  // namespace kbrain::galbraith
