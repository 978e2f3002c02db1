#pragma once
// Teams of one launch that all run at the same time, meeting through words in global memory: for work that is a
// long chain of small steps, each needing every team's result of the step before (the SOM's inputs), where a launch
// per step costs more than the step. A launch of resident_league() teams gets a team per SM on GPUs (each SM holds at
// least one team of that size, so every team is resident however the kernel's occupancy turns out) and a team of one
// thread per host thread on CPUs (the league's members then run on the pool's threads at once). A team that waits
// for another spins: more teams than that would wait for teams that cannot start. The GPU count assumes the launch
// has the device's SMs to itself (not an MPS share smaller than the device).
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace kbrain {

struct ResidentLeague {
  int teams = 1, team_size = 1;
};

// A GPU team's threads. Kernels launched as resident teams carry ResidentBounds, so the compiler fits them to teams
// of that size (registers spill rather than the launch failing).
inline constexpr int kResidentGpuTeam = 512;
using ResidentBounds = Kokkos::LaunchBounds<kResidentGpuTeam, 1>;

template <class Backend>
ResidentLeague resident_league() {
  const int units = Backend::describe().parallel_units;  // SMs on GPUs, threads on CPUs
  return Backend::is_gpu ? ResidentLeague{units > 0 ? units : 1, kResidentGpuTeam}
                         : ResidentLeague{units > 0 ? units : 1, 1};
}

// One 64-bit word that one team writes and the others poll: a single store, and reads that no cache keeps old
// (volatile on GPUs, where such accesses go to the shared L2; relaxed atomics on CPUs, where a plain read in a loop
// may be hoisted out of it). Teams that meet this way exchange only what the words carry: no fence orders anything
// else.
KOKKOS_INLINE_FUNCTION void resident_publish(std::uint64_t* word, std::uint64_t value) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<volatile std::uint64_t*>(word) = value;
#else
  __atomic_store_n(word, value, __ATOMIC_RELAXED);
#endif
}
KOKKOS_INLINE_FUNCTION std::uint64_t resident_read(const std::uint64_t* word) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const volatile std::uint64_t*>(word);
#else
  return __atomic_load_n(word, __ATOMIC_RELAXED);
#endif
}

}  // namespace kbrain
