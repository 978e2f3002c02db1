#pragma once
// The SOM's resident strategy (som_simulation.hpp, SomStrategy::Resident): one launch trains a batch of consecutive
// inputs. Its teams are all resident at once (backends/resident_league.hpp) and each owns a contiguous range of
// neurons. Per input, each team applies the previous input's update to its own neurons, folds their minimum distance
// to the current pixel and publishes it as stamped words (SomStampedBest); every team then waits for every team's
// words of that input and folds them itself (the order is total: every team finds the same BMU). Nothing else is
// exchanged, so no fence or count is needed. The batch's last update is applied before the launch ends; team 0 folds
// the digest and keeps the last BMU. The same arithmetic as the other strategies (som_distance, som_update; of equal
// distances the lowest index wins), so host backends train the same bits.
//
// Where a thread owns at most kMaxHeld neurons (Held > 0), their weights stay in registers for the whole batch and
// are written back at its end: an input then touches no global memory but the pixels and the words. Larger grids
// (Held = 0) read and write each neuron's weights per input.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include <Kokkos_Core.hpp>

#include "backends/resident_league.hpp"
#include "models/galbraith_som/som_kernels.hpp"
#include "models/galbraith_som/som_step_kernels.hpp"

#if defined(__CUDACC__)
#define KBRAIN_SOM_UNROLL _Pragma("unroll")
#else
#define KBRAIN_SOM_UNROLL
#endif

namespace kbrain::galbraith {

// A team's minimum for input k as words that carry the input: [stamp 8 | index 24 | distance bits 32] for float;
// for double two words, [stamp | index | high 32 bits] and [stamp | 0 | low 32 bits]. stamp = k % 255 + 1 (never
// 0, so zeroed slots match no input). Each word is one store, and a reader polls each until its stamp is k's. Two
// slots per team (input parity) suffice: a team writes input k + 2's slot only after it has read every team's slot
// of input k + 1, which every team writes only after it has read all of input k's. Distances are never negative,
// so their bits keep their order; indices need 24 bits (grids up to 4096 x 4096).
template <class Real>
struct SomStampedBest {
  static constexpr int kWords = sizeof(Real) == 4 ? 1 : 2;
  static constexpr std::int64_t kMaxNeurons = std::int64_t(1) << 24;
  static constexpr std::uint64_t kStampMask = 0xff00000000000000ull;

  KOKKOS_INLINE_FUNCTION static std::uint64_t stamp(std::int64_t k) {
    return static_cast<std::uint64_t>(k % 255 + 1) << 56;
  }
  KOKKOS_INLINE_FUNCTION static void publish(std::uint64_t* slot, const SomBest<Real>& b, std::int64_t k) {
    // 24 bits of index: no candidate's index (none()) must not reach the stamp
    const std::uint64_t head = stamp(k) | ((static_cast<std::uint64_t>(static_cast<std::uint32_t>(b.index)) & 0xffffffull) << 32);
    if constexpr (kWords == 1) {
      std::uint32_t bits;
      memcpy(&bits, &b.value, sizeof bits);
      resident_publish(slot, head | bits);
    } else {
      std::uint64_t bits;
      memcpy(&bits, &b.value, sizeof bits);
      resident_publish(slot, head | (bits >> 32));
      resident_publish(slot + 1, stamp(k) | (bits & 0xffffffffull));
    }
  }
  KOKKOS_INLINE_FUNCTION static std::uint64_t await_word(const std::uint64_t* word, std::uint64_t s) {
    std::uint64_t w = resident_read(word);
    while ((w & kStampMask) != s) w = resident_read(word);
    return w;
  }
  KOKKOS_INLINE_FUNCTION static SomBest<Real> await(const std::uint64_t* slot, std::int64_t k) {
    const std::uint64_t s = stamp(k);
    const std::uint64_t w0 = await_word(slot, s);
    SomBest<Real> b;
    b.index = static_cast<std::int32_t>((w0 >> 32) & 0xffffffull);
    if constexpr (kWords == 1) {
      const auto bits = static_cast<std::uint32_t>(w0 & 0xffffffffull);
      memcpy(&b.value, &bits, sizeof bits);
    } else {
      const std::uint64_t w1 = await_word(slot + 1, s);
      const std::uint64_t bits = ((w0 & 0xffffffffull) << 32) | (w1 & 0xffffffffull);
      memcpy(&b.value, &bits, sizeof bits);
    }
    return b;
  }
};

// The league's split of n neurons among at most `teams` teams: the most neurons a team owns and the teams that own
// any (a team with none would still have to publish, and has nothing to publish).
struct SomResidentSplit {
  std::int64_t per_team = 1;
  int teams = 1;
};
inline SomResidentSplit som_resident_split(std::int64_t neurons, int teams) {
  const std::int64_t t = std::max<std::int64_t>(1, std::min<std::int64_t>(teams, neurons));
  const std::int64_t per_team = (neurons + t - 1) / t;
  return SomResidentSplit{per_team, static_cast<int>((neurons + per_team - 1) / per_team)};
}

// What every kernel shape of a batch shares.
template <class Real, class Exec>
struct SomResidentBatch : SomTraining<Real, typename Exec::memory_space> {
  using Mem = typename Exec::memory_space;

  Kokkos::View<std::uint64_t*, Mem> slots;  // (input parity, team, word), zeroed once
  Kokkos::View<std::int32_t, Mem> last;     // the BMU of the last input trained
  std::int64_t per_team = 1;                // neurons [r * per_team, (r + 1) * per_team) to team r
  std::int64_t first = 0, inputs = 0;       // the batch: steps first ... first + inputs - 1
};

// The most neurons a thread keeps in registers (float: 3 x 16 registers; double: 3 x 8 register pairs).
template <class Real>
inline constexpr int kSomMaxHeld = sizeof(Real) == 4 ? 16 : 8;

// The register shape for `per_thread` neurons a thread: the smallest of 1, 2, 4, ... kSomMaxHeld that holds them,
// or 0 (weights read per input) when none does.
template <class Real>
inline int som_resident_held(std::int64_t per_thread) {
  for (int h = 1; h <= kSomMaxHeld<Real>; h *= 2)
    if (per_thread <= h) return h;
  return 0;
}

template <class Real, class Exec, int Held>
struct SomTrainResident : SomResidentBatch<Real, Exec> {
  using Base = SomResidentBatch<Real, Exec>;
  using Mem = typename Base::Mem;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Scratch = typename Exec::scratch_memory_space;
  using Bests = Kokkos::View<SomBest<Real>*, Scratch, Kokkos::MemoryUnmanaged>;
  using Slot = SomStampedBest<Real>;
  static constexpr int kHeld = Held > 0 ? Held : 1;

  explicit SomTrainResident(const Base& b) : Base(b) {}

  static std::size_t scratch_bytes(int team_size) { return Bests::shmem_size(team_size); }

  // f(i, n) for each neuron n whose weights this thread holds in held[i], in ascending n.
  template <class F>
  KOKKOS_INLINE_FUNCTION static void for_held(std::int64_t first_neuron, std::int64_t end, int size, F&& f) {
    KBRAIN_SOM_UNROLL
    for (int i = 0; i < kHeld; ++i) {
      const std::int64_t n = first_neuron + std::int64_t(i) * size;
      if (n < end) f(i, n);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    Bests scratch(team.team_scratch(0), team.team_size());
    const int me = team.league_rank(), teams = team.league_size(), rank = team.team_rank(), size = team.team_size();
    const std::int64_t begin = me * this->per_team;
    const std::int64_t end = begin + this->per_team < this->neurons ? begin + this->per_team : this->neurons;
    const std::int32_t width = this->width;
    const Real alpha = this->alpha;
    const auto& w = this->w;
    SomRgb<Real> held[kHeld];
    if constexpr (Held > 0)
      for_held(begin + rank, end, size, [&](int i, std::int64_t n) { held[i] = SomRgb<Real>{w.r(n), w.g(n), w.b(n)}; });
    std::int32_t bmu = -1;  // the previous input's BMU (none at the batch's start: the last batch applied its own)
    for (std::int64_t j = 0; j < this->inputs; ++j) {
      const std::int64_t k = this->first + j;
      // the previous input's update, fused with this input's distances (ascending index per thread: of equal
      // distances the lower index is met first)
      const SomOwed<Real, Mem> owed = this->owed_by(k - 1, bmu);
      const SomPixel<Real, Mem> current(this->image, k % this->pixels);
      SomBest<Real> mine = SomBest<Real>::none();
      auto offer = [&](const SomRgb<Real>& c, std::int64_t n) {
        som_keep_better(mine, SomBest<Real>{som_distance(c.r, c.g, c.b, current), static_cast<std::int32_t>(n)});
      };
      if constexpr (Held > 0) {
        for_held(begin + rank, end, size, [&](int i, std::int64_t n) {
          if (owed.reaches(n, width)) som_update(held[i].r, held[i].g, held[i].b, owed.pixel, alpha);
          offer(held[i], n);
        });
      } else {
        for (std::int64_t n = begin + rank; n < end; n += size)
          offer(som_weights_after(w, n, owed.reaches(n, width), owed.pixel, alpha), n);
      }
      const SomBest<Real> team_best = som_team_minimum(team, scratch, mine);
      std::uint64_t* const slots = this->slots.data() + std::int64_t(k & 1) * teams * Slot::kWords;
      if (rank == 0) Slot::publish(slots + std::int64_t(me) * Slot::kWords, team_best, k);
      mine = SomBest<Real>::none();
      for (int q = rank; q < teams; q += size) som_keep_better(mine, Slot::await(slots + std::int64_t(q) * Slot::kWords, k));
      team.team_barrier();  // every thread has read the scratch of the team minimum above
      bmu = som_team_minimum(team, scratch, mine).index;
      team.team_barrier();  // ... and of this one, before the next input writes it
      if (me == 0 && rank == 0) {
        this->digest() = som_digest_fold(this->digest(), bmu);
        this->last() = bmu;
      }
    }
    if (this->inputs <= 0) return;
    // the batch's last update, and the held weights back to memory
    const SomOwed<Real, Mem> owed = this->owed_by(this->first + this->inputs - 1, bmu);
    if constexpr (Held > 0) {
      for_held(begin + rank, end, size, [&](int i, std::int64_t n) {
        SomRgb<Real>& c = held[i];
        if (owed.reaches(n, width)) som_update(c.r, c.g, c.b, owed.pixel, alpha);
        w.r(n) = c.r;
        w.g(n) = c.g;
        w.b(n) = c.b;
      });
    } else {
      for (std::int64_t n = begin + rank; n < end; n += size)
        if (owed.reaches(n, width)) (void)som_weights_after(w, n, true, owed.pixel, alpha);
    }
  }
};

}  // namespace kbrain::galbraith

#undef KBRAIN_SOM_UNROLL
