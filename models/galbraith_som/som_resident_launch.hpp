#pragma once
// The host side of the SOM's resident strategy (som_resident_kernels.hpp): the league's split of the neurons, the
// stamped words, the kernel shape (neurons per thread held in registers, or none) and the launch of a batch.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <fmt/format.h>
#include <Kokkos_Core.hpp>

#include "backends/resident_league.hpp"
#include "core/kokkos_compat.hpp"
#include "models/galbraith_som/som_resident_kernels.hpp"

namespace kbrain::galbraith {

template <class Backend, class Real>
class SomResidentLaunch {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;

  // training: what the kernels read; last: where the last BMU goes; league: the teams (resident_league<Backend>()
  // unless a test asks for smaller ones).
  SomResidentLaunch(const SomTraining<Real, Mem>& training, const Kokkos::View<std::int32_t, Mem>& last,
                    const ResidentLeague& league) {
    const std::int64_t n = training.neurons;
    if (n > SomStampedBest<Real>::kMaxNeurons)
      throw std::runtime_error(fmt::format("the resident SOM strategy indexes at most {} neurons; the grid has {}",
                                           SomStampedBest<Real>::kMaxNeurons, n));
    const SomResidentSplit split = som_resident_split(n, league.teams);
    teams_ = split.teams;
    team_ = league.team_size;
    static_cast<SomTraining<Real, Mem>&>(batch_) = training;
    batch_.slots = Kokkos::View<std::uint64_t*, Mem>("som_resident_slots",
                                                     std::size_t(2) * teams_ * SomStampedBest<Real>::kWords);
    batch_.last = last;
    batch_.per_team = split.per_team;
    held_ = som_resident_held<Real>((split.per_team + team_ - 1) / team_);
    // a shape the backend cannot run in teams of this size reads the weights per input instead
    const int team_max = with_held(held_, [&](auto held) { return team_size_max<decltype(held)::value>(); });
    if (held_ > 0 && team_max < team_) held_ = 0;
    if (team_size_max<0>() < team_)
      throw std::runtime_error(fmt::format("{} cannot run the resident SOM kernel in teams of {} threads",
                                           Backend::name, team_));
  }

  // Inputs first ... first + inputs - 1 in one launch; the host does not wait.
  void launch(std::int64_t first, std::int64_t inputs) const {
    SomResidentBatch<Real, Exec> batch = batch_;
    batch.first = first;
    batch.inputs = inputs;
    with_held(held_, [&](auto held) {
      constexpr int kHeld = decltype(held)::value;
      Kokkos::parallel_for("kbrain::som::resident", kx::light_weight(policy<kHeld>()), Kernel<kHeld>(batch));
      return 0;
    });
  }

  std::string describe() const {
    return fmt::format("one launch of {} resident teams of {} (minima exchanged as stamped words per input; {})",
                       teams_, team_,
                       held_ > 0 ? fmt::format("up to {} neurons' weights per thread in registers", held_)
                                 : std::string("weights read and written per input"));
  }

 private:
  template <int Held>
  using Kernel = SomTrainResident<Real, Exec, Held>;

  // f(std::integral_constant<int, held>) for the kernel shape `held` (1, 2, 4, 8, 16 or 0).
  template <class F>
  static auto with_held(int held, F&& f) {
    switch (held) {
      case 1: return f(std::integral_constant<int, 1>());
      case 2: return f(std::integral_constant<int, 2>());
      case 4: return f(std::integral_constant<int, 4>());
      case 8: return f(std::integral_constant<int, 8>());
      case 16:
        if constexpr (kSomMaxHeld<Real> >= 16) return f(std::integral_constant<int, 16>());
        [[fallthrough]];
      default: return f(std::integral_constant<int, 0>());
    }
  }
  template <int Held>
  Kokkos::TeamPolicy<Exec, ResidentBounds> policy() const {
    Kokkos::TeamPolicy<Exec, ResidentBounds> p(teams_, team_);
    p.set_scratch_size(0, Kokkos::PerTeam(Kernel<Held>::scratch_bytes(team_)));
    return p;
  }
  template <int Held>
  int team_size_max() const {
    return policy<Held>().team_size_max(Kernel<Held>(batch_), Kokkos::ParallelForTag());
  }

  SomResidentBatch<Real, Exec> batch_;  // what every launch shares (its views: the words)
  int teams_ = 1, team_ = 1, held_ = 0;
};

}  // namespace kbrain::galbraith
