// Issue 24's SOM goal is ≤ 5 µs per input on a 512² grid; the product's one launch per input, replayed 16 per graph,
// takes 7.6 µs on an H200, most of it the launch's own chain of dependent memory accesses. This probe tries the other
// shape: one launch for many inputs, its teams resident together (a team per SM), meeting once per input at a
// barrier in global memory:
//   each team applies the previous input's update to its own neurons, offers their minimum distance to the current
//   pixel in partial(input parity, team), announces it with an atomic count, waits until every team has (the count
//   only grows: input i is complete at count = teams * (i + 1)), then folds all teams' minima itself, so every team
//   knows the BMU without a second barrier. Two parities suffice: a team can only write input i + 2's slot after
//   every team has arrived for input i + 1, which each does after it has read input i's slots.
// Two ways to meet: a count and fences (backends/resident_league.hpp's barrier), or stamped words (each team's
// minimum published as one word that carries the input, polled by every team: no fence, no count).
// Window rule (width 5), alpha 0.05, random pixels from the counter RNG, the product's arithmetic (som_distance,
// som_update, the lowest index wins ties). The BMUs are checked against a host run of the same inputs, one at a
// time (float rounding may differ on the GPU by contraction: the first differing input is printed if any), and
// every run's against the first's (the same arithmetic: they must agree).
// Built for CUDA: teams that spin need every team resident. It also runs on a host default backend with a team of one
// per thread (all of them run at once), which checks the barrier logic, not the speed.
//   som_persistent_probe SIDE INPUTS [CHECKED_INPUTS]
#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/kokkos_compat.hpp"
#include "core/rng/counter_rng.hpp"
#include "models/galbraith_som/som_kernels.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::galbraith;
using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
using Real = float;

// A team's minimum as one 64-bit word that carries the input it belongs to: [stamp 8 | index 24 | distance bits 32],
// stamp = input % 255 + 1 (never 0, so the zeroed slots match no input). One store publishes it; a reader polls the
// word until its stamp is the input's, and needs no fence and no count (nothing else is published).
KOKKOS_INLINE_FUNCTION unsigned long long stamp_of(std::int64_t k) { return static_cast<unsigned long long>(k % 255 + 1); }
KOKKOS_INLINE_FUNCTION unsigned long long pack(const SomBest<Real>& b, std::int64_t k) {
  union {
    float f;
    unsigned int u;
  } v;
  v.f = b.value;
  const unsigned long long index = b.index >= 0 && b.index < 0xFFFFFF ? static_cast<unsigned long long>(b.index) : 0xFFFFFFull;
  return (stamp_of(k) << 56) | (index << 32) | v.u;
}
KOKKOS_INLINE_FUNCTION SomBest<Real> unpack(unsigned long long word) {
  union {
    float f;
    unsigned int u;
  } v;
  v.u = static_cast<unsigned int>(word & 0xFFFFFFFFull);
  const auto index = static_cast<std::int32_t>((word >> 32) & 0xFFFFFFull);
  return SomBest<Real>{v.f, index == 0xFFFFFF ? 2147483647 : index};
}

// Stamped = false: the minima in `partial`, announced by an atomic count and full fences (the barrier of
// backends/resident_league.hpp). Stamped = true: each minimum published as one stamped word in `slots`.
template <bool Stamped>
struct PersistentSom {
  using Member = Kokkos::TeamPolicy<Exec>::member_type;
  using Bests = Kokkos::View<SomBest<Real>*, Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  SomWeights<Real, Mem> w;
  Kokkos::View<const std::uint8_t*, Mem> image;
  Kokkos::View<SomBest<Real>**, Kokkos::LayoutRight, Mem> partial;  // (input parity, team)
  Kokkos::View<long long*, Mem> arrived;                            // arrived(0): teams * inputs done
  Kokkos::View<unsigned long long**, Kokkos::LayoutRight, Mem> slots;  // Stamped: (input parity, team), zeroed
  Kokkos::View<std::int32_t*, Mem> bmus;                            // the BMU of every input
  std::int64_t neurons = 1, per_team = 1, inputs = 1;
  std::int32_t width = 1;
  Real alpha = Real(0.05);

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    Bests scratch(team.team_scratch(0), team.team_size());
    const int teams = team.league_size(), me = team.league_rank();
    const std::int64_t begin = me * per_team, end = begin + per_team < neurons ? begin + per_team : neurons;
    SomRule rule;  // the window, half-width 2
    std::int32_t bmu = -1;
    for (std::int64_t k = 0; k < inputs; ++k) {
      const SomPixel<Real, Mem> owed(image, k > 0 ? k - 1 : 0), current(image, k);
      const std::int64_t bx = bmu >= 0 ? bmu % width : 0, by = bmu >= 0 ? bmu / width : 0;
      SomBest<Real> mine = SomBest<Real>::none();
      for (std::int64_t n = begin + team.team_rank(); n < end; n += team.team_size()) {
        const SomRgb<Real> c = som_weights_after(w, n, bmu >= 0 && rule.inside(n % width - bx, n / width - by), owed, alpha);
        som_keep_better(mine, SomBest<Real>{som_distance(c.r, c.g, c.b, current), static_cast<std::int32_t>(n)});
      }
      const SomBest<Real> team_best = som_team_minimum(team, scratch, mine);
      team.team_barrier();  // the scratch is used again below
      if constexpr (Stamped) {
        if (team.team_rank() == 0) *reinterpret_cast<volatile unsigned long long*>(&slots(k & 1, me)) = pack(team_best, k);
        mine = SomBest<Real>::none();
        for (int q = team.team_rank(); q < teams; q += team.team_size()) {
          const volatile unsigned long long* slot = &slots(k & 1, q);  // written by other teams: not from a cache
          unsigned long long word = *slot;
          while ((word >> 56) != stamp_of(k)) word = *slot;
          som_keep_better(mine, unpack(word));
        }
      } else {
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          partial(k & 1, me) = team_best;
          Kokkos::memory_fence();  // the minimum is visible before the count that announces it
          kx::atomic_increment_i64(&arrived(0));
          const volatile long long* count = arrived.data();
          const long long target = static_cast<long long>(teams) * (k + 1);
          while (*count < target) {
          }
          Kokkos::memory_fence();
        });
        team.team_barrier();
        const volatile SomBest<Real>* left = &partial(k & 1, 0);  // written by other teams: not from a cache
        mine = SomBest<Real>::none();
        for (int q = team.team_rank(); q < teams; q += team.team_size())
          som_keep_better(mine, SomBest<Real>{left[q].value, left[q].index});
      }
      bmu = som_team_minimum(team, scratch, mine).index;
      team.team_barrier();
      if (me == 0 && team.team_rank() == 0) bmus(k) = bmu;
    }
    // the last input's update
    const SomPixel<Real, Mem> owed(image, inputs - 1);
    const std::int64_t bx = bmu % width, by = bmu / width;
    for (std::int64_t n = begin + team.team_rank(); n < end; n += team.team_size())
      if (rule.inside(n % width - bx, n / width - by)) (void)som_weights_after(w, n, true, owed, alpha);
  }
};

// The same inputs one at a time on the host.
std::vector<std::int32_t> host_bmus(std::int64_t side, const std::vector<std::uint8_t>& pixels, std::int64_t inputs) {
  using HostMem = Kokkos::HostSpace;
  const std::int64_t n = side * side;
  SomWeights<Real, HostMem> w{Kokkos::View<Real*, HostMem>("r", n), Kokkos::View<Real*, HostMem>("g", n),
                              Kokkos::View<Real*, HostMem>("b", n)};
  for (std::int64_t q = 0; q < n; ++q) SomInit<Real, HostMem>{w, 1}(q);
  Kokkos::View<const std::uint8_t*, HostMem> image(pixels.data(), pixels.size());
  SomRule rule;
  std::vector<std::int32_t> out;
  for (std::int64_t k = 0; k < inputs; ++k) {
    const SomPixel<Real, HostMem> p(image, k);
    SomBest<Real> best = SomBest<Real>::none();
    for (std::int64_t q = 0; q < n; ++q)
      som_keep_better(best, SomBest<Real>{som_distance(w, q, p), static_cast<std::int32_t>(q)});
    out.push_back(best.index);
    const std::int64_t bx = best.index % side, by = best.index / side;
    for (std::int64_t q = 0; q < n; ++q)
      if (rule.inside(q % side - bx, q / side - by)) som_update(w.r(q), w.g(q), w.b(q), p, Real(0.05));
  }
  return out;
}

struct Trained {
  std::vector<std::int32_t> bmus;
  double seconds = 0;
};

template <bool Stamped>
Trained train(const Kokkos::View<std::uint8_t*, Mem>& image, std::int64_t side, std::int64_t inputs, int teams,
              int team_size) {
  using F = PersistentSom<Stamped>;
  const std::int64_t neurons = side * side;
  F f;
  f.w = {Kokkos::View<Real*, Mem>("r", neurons), Kokkos::View<Real*, Mem>("g", neurons), Kokkos::View<Real*, Mem>("b", neurons)};
  Kokkos::parallel_for("init", Kokkos::RangePolicy<Exec>(0, neurons), SomInit<Real, Mem>{f.w, 1});
  f.image = image;
  f.partial = Kokkos::View<SomBest<Real>**, Kokkos::LayoutRight, Mem>("partial", 2, teams);
  f.arrived = Kokkos::View<long long*, Mem>("arrived", 1);
  f.slots = Kokkos::View<unsigned long long**, Kokkos::LayoutRight, Mem>("slots", 2, teams);
  f.bmus = Kokkos::View<std::int32_t*, Mem>("bmus", inputs);
  f.neurons = neurons;
  f.per_team = (neurons + teams - 1) / teams;
  f.inputs = inputs;
  f.width = static_cast<std::int32_t>(side);
  const Kokkos::TeamPolicy<Exec> policy =
      Kokkos::TeamPolicy<Exec>(teams, team_size).set_scratch_size(0, Kokkos::PerTeam(F::Bests::shmem_size(team_size)));
  Kokkos::fence();
  const auto t0 = std::chrono::steady_clock::now();
  Kokkos::parallel_for("som_persistent", policy, f);
  Kokkos::fence();
  Trained t;
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.bmus);
  t.bmus.assign(h.data(), h.data() + h.size());
  return t;
}

std::string first_difference(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t k = 0; k < n; ++k)
    if (a[k] != b[k]) return "differ from input " + std::to_string(k);
  return "identical (" + std::to_string(n) + " inputs)";
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const std::int64_t side = argc > 1 ? std::atoll(argv[1]) : 512;
    const std::int64_t inputs = argc > 2 ? std::atoll(argv[2]) : 200000;
    const std::int64_t checked = argc > 3 ? std::atoll(argv[3]) : 2000;
    const std::int64_t neurons = side * side;
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(3 * inputs));
    for (std::size_t q = 0; q < pixels.size(); ++q) pixels[q] = std::uint8_t(counter_uniform(7, q, 0) * 256.0);
    Kokkos::View<std::uint8_t*, Mem> image("image", pixels.size());
    Kokkos::deep_copy(image, Kokkos::View<const std::uint8_t*, Kokkos::HostSpace>(pixels.data(), pixels.size()));
    // A team per SM, resident together whatever the kernel's occupancy. On a host backend (a check of the barrier
    // logic only), a team of one per thread: every team runs at once.
    const bool gpu = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible == false;
    const int sms = gpu ? Exec().concurrency() / 2048 : Exec().concurrency(), team_size = gpu ? 512 : 1;
    std::vector<std::int32_t> reference;  // the fenced variant's BMUs with a team per SM
    for (const bool stamped : {false, true})
      for (int teams : {sms, sms / 2}) {
        const auto got = stamped ? train<true>(image, side, inputs, teams, team_size) : train<false>(image, side, inputs, teams, team_size);
        std::printf("side %lld, %s, %d teams of %d: %lld inputs in %.4f s, %.3f us per input\n",
                    static_cast<long long>(side), stamped ? "stamped words" : "count and fences", teams, team_size,
                    static_cast<long long>(inputs), got.seconds, got.seconds / double(inputs) * 1e6);
        if (!stamped && teams == sms) {
          reference = got.bmus;
          if (checked > 0) {
            const std::vector<std::int32_t> host = host_bmus(side, pixels, std::min(checked, inputs));
            std::printf("  BMUs of the first %zu inputs against the host: %s\n", host.size(),
                        first_difference(host, got.bmus).c_str());
          }
        } else {
          std::printf("  BMUs against count and fences with a team per SM: %s\n",
                      first_difference(reference, got.bmus).c_str());
        }
      }
  }
  Kokkos::finalize();
  return 0;
}
