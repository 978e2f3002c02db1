#pragma once
#include <cstdint>
#include <string>

namespace kbrain {

// What a backend runs on, as printed by `kbrain backends` and written into every report.
struct HardwareInfo {
  std::string device;          // "AMD EPYC 7B13 (1 thread)", "NVIDIA H200"
  int parallel_units = 1;      // CPU threads or GPU SMs
  std::string unit_name;       // "threads" / "SMs"
  std::uint64_t memory_bytes = 0;  // host RAM or GPU global memory
  std::uint64_t free_memory_bytes = 0;
  std::string extra;           // e.g. compute capability, clock
  int device_index = -1;       // GPUs: the runtime's index of the device (energy counters find it by this)
};

// Host facts shared by the CPU backends (core/…/host_info.cpp).
std::string host_cpu_model();
std::uint64_t host_memory_bytes();
std::uint64_t host_available_memory_bytes();

}  // namespace kbrain
