#pragma once
// The SOM's one-launch-per-input strategy (som_simulation.hpp picks it on GPUs). Each input is one launch of a
// league of teams over the neurons:
//   - each thread offers its neurons' squared distances to the input pixel; each team leaves its (distance, index)
//     minimum in `partial`;
//   - the last team to finish (an atomic count of the teams done; every other team has read its weights by then)
//     combines the minima into the input's BMU, updates the BMU's neighbourhood, folds the BMU into the digest and
//     moves the cursor on.
// Which input comes next is read on the device (the cursor), so every input issues the same launch: recorded once
// and replayed where the backend has a step graph (backends/step_replay.hpp), which is what a launch-bound step of
// a few microseconds needs. The same arithmetic as the chunks of som_kernels.hpp (som_distance, som_update).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/galbraith_som/som_kernels.hpp"

namespace kbrain::galbraith {

// The words of the per-input cursor.
enum SomCursorWord : int {
  kSomNextInput = 0,   // the step index of the input the next launch trains
  kSomTeamsDone = 1,   // teams of the current launch that have left their minimum (0 between launches)
  kSomCursorWords = 2
};

template <class Real, class Exec>
struct SomTrainInput {
  using Mem = typename Exec::memory_space;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Reducer = SomBestReducer<Real, Mem>;

  SomWeights<Real, Mem> w;
  Kokkos::View<const std::uint8_t*, Mem> image;  // 3 bytes a pixel, BMP file order
  Kokkos::View<std::int64_t*, Mem> cursor;       // SomCursorWord
  Kokkos::View<SomBest<Real>*, Mem> partial;     // one per team
  Kokkos::View<SomBest<Real>*, Mem> best;        // input k's BMU in best(k & 1)
  Kokkos::View<const double*, Mem> pass_r2;      // the disc's r^2 of each pass, the last one for every later pass
  Kokkos::View<const int*, Mem> pass_reach;      // the disc's half-width of the update's bounding box, per pass
  Kokkos::View<std::uint64_t, Mem> digest;       // FNV-1a of every BMU so far, in order
  std::int64_t neurons = 1, pixels = 1, per_team = 1;  // neurons [r * per_team, (r + 1) * per_team) to team r
  std::int64_t width = 1, height = 1;
  int league = 1;
  Real alpha = Real(0.05);
  bool disc = false;
  int half = 2;  // the window's half-width

  KOKKOS_INLINE_FUNCTION SomRule rule_of(std::int64_t input) const {
    SomRule rule;
    rule.disc = disc;
    rule.half = half;
    rule.reach = half;
    if (disc) {
      const std::int64_t pass = input / pixels, last = static_cast<std::int64_t>(pass_r2.extent(0)) - 1;
      rule.r2 = pass_r2(pass < last ? pass : last);
      rule.reach = pass_reach(pass < last ? pass : last);
    }
    return rule;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t k = cursor(kSomNextInput);
    const SomPixel<Real, Mem> p(image, k % pixels);
    const std::int64_t begin = team.league_rank() * per_team;
    const std::int64_t end = begin + per_team < neurons ? begin + per_team : neurons;
    SomBest<Real> team_best = SomBest<Real>::none();
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, begin, end),
        [&](const std::int64_t n, SomBest<Real>& b) {
          const Real d = som_distance(w, n, p);
          if (Reducer::better(d, static_cast<std::int32_t>(n), b.value, b.index)) b = {d, static_cast<std::int32_t>(n)};
        },
        Reducer(team_best));
    // The team leader leaves the team's minimum and counts the team done; the last one done goes on.
    int last = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](int& is_last) {
          partial(team.league_rank()) = team_best;
          Kokkos::memory_fence();  // the minimum is visible before the count that announces it
          is_last = kx::atomic_increment_i64(&cursor(kSomTeamsDone)) == team.league_size() - 1;
        },
        last);
    if (!last) return;
    Kokkos::memory_fence();
    const volatile SomBest<Real>* left = partial.data();  // written by other teams: not from a cache
    SomBest<Real> input_best = SomBest<Real>::none();
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, team.league_size()),
        [&](const int q, SomBest<Real>& b) {
          const Real v = left[q].value;
          const std::int32_t i = left[q].index;
          if (Reducer::better(v, i, b.value, b.index)) b = {v, i};
        },
        Reducer(input_best));
    // The update inside the rule around the BMU, within the grid (none without a finite distance: NaN weights).
    const std::int32_t bmu = input_best.index;
    if (bmu >= 0 && bmu < neurons) {
      const SomRule rule = rule_of(k);
      const std::int64_t bx = bmu % width, by = bmu / width, box = 2 * std::int64_t(rule.reach) + 1;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, box * box), [&](const std::int64_t q) {
        const std::int64_t u = q % box - rule.reach, v = q / box - rule.reach, x = bx + u, y = by + v;
        if (x < 0 || y < 0 || x >= width || y >= height || !rule.inside(u, v)) return;
        const std::int64_t n = y * width + x;
        Real r = w.r(n), g = w.g(n), b = w.b(n);
        som_update(r, g, b, p, alpha);
        w.r(n) = r;
        w.g(n) = g;
        w.b(n) = b;
      });
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      best(k & 1) = input_best;
      digest() = som_digest_fold(digest(), bmu);
      cursor(kSomNextInput) = k + 1;
      cursor(kSomTeamsDone) = 0;
    });
  }
};

}  // namespace kbrain::galbraith
