#pragma once
// The one place where Kokkos version differences live (kbrain builds against Kokkos 3.4 ... 5.x).
//  - math functions: Kokkos::Experimental::exp (3.x) vs Kokkos::exp (4.0+)
//  - concurrency(): static in 3.x, member in 4.x (calling it on an instance works for both)
#include <Kokkos_Core.hpp>

#ifndef KOKKOS_VERSION
#error "kbrain: Kokkos_Core.hpp did not define KOKKOS_VERSION"
#endif

namespace kbrain::kx {

#if KOKKOS_VERSION >= 40000
using Kokkos::exp;
using Kokkos::sqrt;
using Kokkos::fabs;
using Kokkos::log;
using Kokkos::cos;
#else
using Kokkos::Experimental::exp;
using Kokkos::Experimental::sqrt;
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::log;
using Kokkos::Experimental::cos;
#endif

template <class ExecSpace>
int concurrency() {
  return static_cast<int>(ExecSpace().concurrency());
}

inline constexpr int kokkos_version = KOKKOS_VERSION;

}  // namespace kbrain::kx
