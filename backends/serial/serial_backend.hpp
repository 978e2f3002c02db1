#pragma once
#include <Kokkos_Core.hpp>

#include "backends/hardware_info.hpp"

namespace kbrain {

// One CPU core, Kokkos::Serial.
struct SerialBackend {
  using execution_space = Kokkos::Serial;
  using memory_space = Kokkos::HostSpace;
  using staging_memory_space = Kokkos::HostSpace;  // host buffers for MPI (unused: MPI reads memory_space directly)
  static constexpr const char* name = "serial";
  static constexpr bool is_gpu = false;
  static HardwareInfo describe() {
    HardwareInfo h;
    h.device = host_cpu_model();
    h.parallel_units = 1;
    h.unit_name = "thread";
    h.memory_bytes = host_memory_bytes();
    h.free_memory_bytes = host_available_memory_bytes();
    return h;
  }
};

}  // namespace kbrain
