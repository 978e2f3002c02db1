#pragma once
// Host-thread settings made before Kokkos starts.
//  - Thread count: Kokkos' OpenMP backend has a fixed number of thread slots (kx::kMaxHostThreads). --threads is
//    checked against it by the CLI; an OMP_NUM_THREADS or a core count above it (a large host on default
//    settings) is clamped, and the run says so once.
//  - Binding: when OMP_PROC_BIND is unset, the OpenMP runtime binds nothing; kbrain states that explicitly so that
//    Kokkos does not print its four-line advice before every message (OMP_PROC_BIND=spread OMP_PLACES=threads
//    remains the setting for timed runs; the scripts set it).
#include <cstdlib>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <fmt/format.h>

#include "core/kokkos_compat.hpp"

namespace kbrain {

// The thread count to hand to Kokkos (-1: Kokkos' default). Kokkos counts the OpenMP runtime's default team by
// starting it, so a default above the limit (OMP_NUM_THREADS, or the cores of a large host) is lowered first.
inline int host_thread_count(int requested) {
#ifdef _OPENMP
  const int runtime_default = omp_get_max_threads();
  if (runtime_default > kx::kMaxHostThreads) {
    if (requested <= 0)
      fmt::print(stderr, "kbrain: note: {} asks for {} threads; using {}, the most Kokkos' OpenMP backend runs\n",
                 std::getenv("OMP_NUM_THREADS") ? "OMP_NUM_THREADS" : "this host", runtime_default,
                 kx::kMaxHostThreads);
    omp_set_num_threads(requested > 0 ? requested : kx::kMaxHostThreads);
  }
#endif
  return requested;
}

inline void state_default_thread_binding() {
  if (!std::getenv("OMP_PROC_BIND") && !std::getenv("OMP_PLACES")) setenv("OMP_PROC_BIND", "false", 0);
}

}  // namespace kbrain
