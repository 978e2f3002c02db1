#pragma once
// How the fused CSR step is launched on GPU backends: its launch bounds follow the precision and the mean number of
// junctions per cell (IoSimulation and IoMpiSimulation use these). Constants: olive_launch_traits.hpp.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "models/olive/launch/olive_launch_traits.hpp"

namespace kbrain::olive {

// The fused CSR step's blocks per SM by default (GpuLaunch: 2 in double from csr_two_blocks_min_degree junctions
// per cell, otherwise 4).
inline constexpr int csr_step_min_blocks(bool double_precision, double junctions_per_cell) {
  return double_precision && junctions_per_cell >= GpuLaunch::csr_two_blocks_min_degree
             ? GpuLaunch::csr_step_min_blocks_dense_double
             : GpuLaunch::csr_step_min_blocks;
}

// Launches the fused CSR step f over cells [begin, end) with at least `min_blocks` blocks per SM: 2, or else 4.
template <class Exec, class F>
void launch_csr_step(const F& f, std::int64_t begin, std::int64_t end, int min_blocks) {
  constexpr int threads = GpuLaunch::step_threads;
  if (min_blocks == GpuLaunch::csr_step_min_blocks_dense_double)
    Kokkos::parallel_for("kbrain::olive::step",
                         Kokkos::RangePolicy<Exec, Kokkos::LaunchBounds<threads, GpuLaunch::csr_step_min_blocks_dense_double>>(begin, end), f);
  else
    Kokkos::parallel_for("kbrain::olive::step",
                         Kokkos::RangePolicy<Exec, Kokkos::LaunchBounds<threads, GpuLaunch::csr_step_min_blocks>>(begin, end), f);
}

}  // namespace kbrain::olive
