#pragma once
// IO network state: structure of arrays, one row per state variable, one column per cell (LayoutRight, so each
// variable is contiguous over cells). Two buffers are swapped every step; nothing is copied.
#include <cstdint>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "models/olive/cell/io_vars.hpp"

namespace kbrain::olive {

template <class Real, class MemSpace>
using StateView = Kokkos::View<Real**, Kokkos::LayoutRight, MemSpace>;

// Writes the reference initial state of every cell (fill_initial_state).
template <class Real, class MemSpace>
struct InitialStateFunctor {
  StateView<Real, MemSpace> s;
  Real v[NUM_VARS];
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    for (int k = 0; k < NUM_VARS; ++k) s(k, i) = v[k];
  }
};

// Every cell of `s` to the reference initial state, written by the execution space's own threads: on the host the
// threads that will step the cells touch their pages first (a static partition like the step's, so on a NUMA
// machine each thread's cells sit in its own node's memory), and on a GPU nothing is filled on the host and copied.
template <class Exec, class Real, class MemSpace>
void fill_initial_state(const StateView<Real, MemSpace>& s) {
  InitialStateFunctor<Real, MemSpace> f{s, {}};
  for (int k = 0; k < NUM_VARS; ++k) f.v[k] = Real(kInitialState[k]);
  Kokkos::parallel_for("kbrain::olive::initial_state",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, s.extent(1)), f);
  Exec().fence();
}

// One value per cell in a View of the execution space, converted to Real; on the host written by the threads that
// step the cells (first touch, as fill_initial_state).
template <class Exec, class Real, class MemSpace>
Kokkos::View<Real*, MemSpace> per_cell_view(const std::vector<double>& values, const std::string& label) {
  const auto n = static_cast<std::int64_t>(values.size());
  Kokkos::View<Real*, MemSpace> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
  if constexpr (Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible) {
    const double* src = values.data();
    Kokkos::parallel_for(
        "kbrain::olive::per_cell", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, n),
        [=](const std::int64_t i) { out(i) = Real(src[i]); });
    Exec().fence();
  } else {
    auto h = Kokkos::create_mirror_view(out);
    for (std::int64_t i = 0; i < n; ++i) h(i) = Real(values[i]);
    Kokkos::deep_copy(out, h);
  }
  return out;
}

template <class Real, class MemSpace>
struct IoStateBuffers {
  StateView<Real, MemSpace> cur, next;
  void swap() { std::swap(cur, next); }
};

}  // namespace kbrain::olive
