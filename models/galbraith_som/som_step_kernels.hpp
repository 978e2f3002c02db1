#pragma once
// The SOM's one-launch-per-input strategy (som_simulation.hpp picks it on GPUs). Each input is one launch of a
// league of teams over the neurons:
//   - each neuron first applies the previous input's pending update to itself (that input's BMU is final once this
//     launch starts), then offers its squared distance to the current pixel;
//   - each team leaves its (distance, index) minimum in `partial`; the last team to finish (an atomic count of the
//     teams done) combines them into the input's BMU, folds it into the digest and moves the cursor on.
// Which input comes next and which update is pending are read on the device (the cursor), so every input issues
// the same launch: recorded once and replayed where the backend has a step graph (backends/step_replay.hpp), so the
// host's launch cost leaves the step; what remains is the launch's chain of dependent memory accesses
// (docs/models/galbraith-som.md). A flush (search = false) applies the pending update alone.
// The same arithmetic as the chunks of som_kernels.hpp (the distance of som_distance, the update of som_update).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/galbraith_som/som_kernels.hpp"

namespace kbrain::galbraith {

// The words of the per-input cursor.
enum SomCursorWord : int {
  kSomNextInput = 0,     // the step index of the input the next launch trains
  kSomPendingInput = 1,  // the input whose update is still owed, or -1
  kSomTeamsDone = 2,     // teams of the current launch that have left their minimum (0 between launches)
  kSomCursorWords = 3
};

// The rule of an input, read on the device: the window, or the disc of the input's pass (pass_r2: the disc's r^2
// of each pass, the last entry for every later pass).
template <class Mem>
KOKKOS_INLINE_FUNCTION SomRule som_rule_of_input(std::int64_t input, std::int64_t pixels, bool disc, int half,
                                                 const Kokkos::View<const double*, Mem>& pass_r2) {
  SomRule rule;
  rule.disc = disc;
  rule.half = half;
  if (disc) {
    const std::int64_t pass = input / pixels, last = static_cast<std::int64_t>(pass_r2.extent(0)) - 1;
    rule.r2 = pass_r2(pass < last ? pass : last);
  }
  return rule;
}

// The update an input owes the neurons: its rule, its pixel and where its BMU lies; due = false when nothing is owed.
template <class Real, class Mem>
struct SomOwed {
  SomRule rule;
  SomPixel<Real, Mem> pixel;
  std::int64_t bx = 0, by = 0;
  bool due = false;
  KOKKOS_INLINE_FUNCTION bool reaches(std::int64_t n, std::int32_t width) const {
    return due && rule.inside(n % width - bx, n / width - by);
  }
};

// What the GPU strategies' kernels read of a training (som_step_kernels.hpp, som_resident_kernels.hpp).
template <class Real, class Mem>
struct SomTraining {
  SomWeights<Real, Mem> w;
  Kokkos::View<const std::uint8_t*, Mem> image;  // 3 bytes a pixel, BMP file order
  Kokkos::View<const double*, Mem> pass_r2;      // the disc's r^2 of each pass, the last one for every later pass
  Kokkos::View<std::uint64_t, Mem> digest;       // FNV-1a of every BMU so far, in order
  std::int64_t neurons = 1, pixels = 1;
  std::int32_t width = 1;
  Real alpha = Real(0.05);
  bool disc = false;
  int half = 2;  // the window's half-width

  KOKKOS_INLINE_FUNCTION SomRule rule_of(std::int64_t input) const {
    return som_rule_of_input(input, pixels, disc, half, pass_r2);
  }
  // The update input `input` owes with BMU `bmu` (nothing when either is negative).
  KOKKOS_INLINE_FUNCTION SomOwed<Real, Mem> owed_by(std::int64_t input, std::int32_t bmu) const {
    const std::int64_t k = input >= 0 ? input : 0;
    return SomOwed<Real, Mem>{rule_of(k), SomPixel<Real, Mem>(image, k % pixels), bmu >= 0 ? bmu % width : 0,
                              bmu >= 0 ? bmu / width : 0, input >= 0 && bmu >= 0};
  }
};

template <class Real, class Exec>
struct SomTrainInput : SomTraining<Real, typename Exec::memory_space> {
  using Mem = typename Exec::memory_space;
  using Base = SomTraining<Real, Mem>;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Scratch = typename Exec::scratch_memory_space;
  using Bests = Kokkos::View<SomBest<Real>*, Scratch, Kokkos::MemoryUnmanaged>;
  using Base::alpha;
  using Base::digest;
  using Base::image;
  using Base::neurons;
  using Base::pixels;
  using Base::w;
  using Base::width;

  Kokkos::View<std::int64_t*, Mem> cursor;    // SomCursorWord
  Kokkos::View<SomBest<Real>*, Mem> partial;  // one per team
  Kokkos::View<SomBest<Real>*, Mem> best;     // input k's BMU in best(k & 1)
  std::int64_t per_team = 1;                  // neurons [r * per_team, (r + 1) * per_team) to team r
  int league = 1;
  bool search = true;  // false: a flush (apply the pending update, search nothing, leave the next input)

  static std::size_t scratch_bytes(int team_size) { return Bests::shmem_size(team_size); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    Bests scratch(team.team_scratch(0), team.team_size());
    const std::int64_t k = cursor(kSomNextInput), pending = cursor(kSomPendingInput);
    const SomOwed<Real, Mem> owed = this->owed_by(pending, pending >= 0 ? best(pending & 1).index : -1);
    const SomPixel<Real, Mem> current(image, k % pixels);
    const std::int64_t begin = team.league_rank() * per_team;
    const std::int64_t end = begin + per_team < neurons ? begin + per_team : neurons;
    SomBest<Real> mine = SomBest<Real>::none();
    // Ascending index per thread: of equal distances the lower index is met first (and the reducer's order is total).
    for (std::int64_t n = begin + team.team_rank(); n < end; n += team.team_size()) {
      const SomRgb<Real> c = som_weights_after(w, n, owed.reaches(n, width), owed.pixel, alpha);
      if (search) som_keep_better(mine, SomBest<Real>{som_distance(c.r, c.g, c.b, current), static_cast<std::int32_t>(n)});
    }
    const SomBest<Real> team_best = som_team_minimum(team, scratch, mine);
    team.team_barrier();  // the scratch is used again below
    // The team leader leaves the team's minimum and counts the team done; the last one done combines.
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
    mine = SomBest<Real>::none();
    const volatile SomBest<Real>* left = partial.data();  // written by other teams: not from a cache
    for (int q = team.team_rank(); q < team.league_size(); q += team.team_size())
      som_keep_better(mine, SomBest<Real>{left[q].value, left[q].index});
    const SomBest<Real> input_best = som_team_minimum(team, scratch, mine);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      if (search) {
        best(k & 1) = input_best;
        digest() = som_digest_fold(digest(), input_best.index);
        cursor(kSomPendingInput) = k;
        cursor(kSomNextInput) = k + 1;
      } else {
        cursor(kSomPendingInput) = -1;
      }
      cursor(kSomTeamsDone) = 0;
    });
  }
};

}  // namespace kbrain::galbraith
