#pragma once
// f(i) for i in [0, n) on an execution-space instance: through the backend's chained launch where it declares one
// (backends/optional_traits.hpp; CUDA on Hopper and later: the kernel's launch overlaps the previous kernel's tail),
// else Kokkos::parallel_for with a light-weight policy (the functor travels as the kernel's parameter).
#include <Kokkos_Core.hpp>

#include "backends/optional_traits.hpp"
#include "core/kokkos_compat.hpp"

namespace kbrain {

template <class Backend, class Exec, class F>
void launch_range(const Exec& exec, const char* name, const int n, const F& f) {
  if constexpr (kHasChainedLaunch<Backend>) {
    if (Backend::chained_launch::available()) {
      Backend::chained_launch::template parallel_for<256, 1>(f, 0, n, exec);
      return;
    }
  }
  Kokkos::parallel_for(name, kx::light_weight(Kokkos::RangePolicy<Exec>(exec, 0, n)), f);
}

}  // namespace kbrain
