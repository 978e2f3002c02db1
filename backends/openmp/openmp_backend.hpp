#pragma once
#include <Kokkos_Core.hpp>

#include "backends/hardware_info.hpp"
#include "core/kokkos_compat.hpp"

namespace kbrain {

// All host threads Kokkos was initialised with (OMP_NUM_THREADS / --kokkos-threads), Kokkos::OpenMP.
struct OpenMPBackend {
  using execution_space = Kokkos::OpenMP;
  using memory_space = Kokkos::HostSpace;
  using staging_memory_space = Kokkos::HostSpace;  // host buffers for MPI (unused: MPI reads memory_space directly)
  static constexpr const char* name = "openmp";
  static constexpr bool is_gpu = false;
  static HardwareInfo describe() {
    HardwareInfo h;
    h.device = host_cpu_model();
    h.parallel_units = kx::concurrency<execution_space>();
    h.unit_name = "threads";
    h.memory_bytes = host_memory_bytes();
    h.free_memory_bytes = host_available_memory_bytes();
    return h;
  }
};

}  // namespace kbrain
