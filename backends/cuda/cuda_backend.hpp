#pragma once
#include <Kokkos_Core.hpp>

#include "backends/hardware_info.hpp"

namespace kbrain {

HardwareInfo describe_cuda_device(int device);  // cuda_device_info.cpp

// One NVIDIA GPU (the one Kokkos selected), Kokkos::Cuda with device memory (no UVM).
struct CudaBackend {
  using execution_space = Kokkos::Cuda;
  using memory_space = Kokkos::CudaSpace;
  static constexpr const char* name = "cuda";
  static constexpr bool is_gpu = true;
  static HardwareInfo describe() { return describe_cuda_device(Kokkos::Cuda().cuda_device()); }
};

}  // namespace kbrain
