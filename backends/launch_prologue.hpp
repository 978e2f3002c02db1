#pragma once
// A range functor may split its work at a chained launch's wait (backends/cuda/cuda_chained_launch.hpp):
//   P prologue(int i) const;                  reads only what the previous launch does not write
//   void after_wait(int i, const P& p) const; the rest, once the previous launch has finished
// with f(i) doing the two in a row wherever the launch has no wait (host backends, Kokkos::parallel_for).
// A wrapper forwards the split of the functor it wraps (spiking::FirstKernelOfStep).
#include <utility>

#include "core/detected.hpp"

namespace kbrain {

// What F's prologue returns (F has one: has_prologue<F>).
template <class F>
using PrologueOf = decltype(std::declval<const F&>().prologue(0));

template <class F>
inline constexpr bool has_prologue = is_detected_v<PrologueOf, F>;

}  // namespace kbrain
