#include <cuda_runtime.h>
#include <fmt/format.h>

#include "backends/cuda/cuda_backend.hpp"

namespace kbrain {

HardwareInfo describe_cuda_device(int device) {
  HardwareInfo h;
  h.device_index = device;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    h.device = "CUDA device (properties unavailable)";
    return h;
  }
  h.device = prop.name;
  h.parallel_units = prop.multiProcessorCount;
  h.unit_name = "SMs";
  h.memory_bytes = prop.totalGlobalMem;
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) h.free_memory_bytes = free_b;
  h.extra = fmt::format("sm_{}{}, {} MiB L2, {}-bit bus", prop.major, prop.minor, prop.l2CacheSize >> 20,
                        prop.memoryBusWidth);
  return h;
}

}  // namespace kbrain

namespace kbrain {

// backends/device_selection.hpp
int visible_gpus() {
  int gpus = 0;
  return cudaGetDeviceCount(&gpus) == cudaSuccess ? gpus : 0;
}

}  // namespace kbrain
