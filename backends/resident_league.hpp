#pragma once
// Teams of one launch that all run at the same time, and a barrier across them in global memory: for work that is a
// long chain of small steps, each needing every team's result of the step before (the SOM's inputs), where a launch
// per step costs more than the step. A launch of resident_league() teams gets a team per SM on GPUs (each SM holds at
// least one team of that size, so every team is resident however the kernel's occupancy turns out) and a team of one
// thread per host thread on CPUs (the league's members then run on the pool's threads at once). A team that waits at
// the barrier spins: more teams than that would wait for teams that cannot start.
#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"

namespace kbrain {

struct ResidentLeague {
  int teams = 1, team_size = 1;
};

template <class Backend>
ResidentLeague resident_league() {
  const int units = Backend::describe().parallel_units;  // SMs on GPUs, threads on CPUs
  return Backend::is_gpu ? ResidentLeague{units > 0 ? units : 1, 512} : ResidentLeague{units > 0 ? units : 1, 1};
}

// The barrier: `arrived` counts the teams' arrivals and only grows, so round r (counted over every launch that uses
// the counter, from 1) is complete when it reaches r times the league size; nothing is reset between rounds. What
// a team wrote before it arrives is visible to every team after the round completes.
template <class Mem>
struct LeagueBarrier {
  Kokkos::View<long long*, Mem> arrived;  // one word

  template <class Member>
  KOKKOS_INLINE_FUNCTION void arrive_and_wait(const Member& team, long long round) const {
    team.team_barrier();  // the team's writes of this round are done
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      Kokkos::memory_fence();  // ... and visible before the arrival that announces them
      kx::atomic_increment_i64(&arrived(0));
      const volatile long long* count = arrived.data();
      const long long target = round * static_cast<long long>(team.league_size());
      while (*count < target) {
      }
      Kokkos::memory_fence();
    });
    team.team_barrier();
  }
};

}  // namespace kbrain
