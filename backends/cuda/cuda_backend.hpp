#pragma once
#include <Kokkos_Core.hpp>

#include "backends/cuda/cuda_chained_launch.hpp"
#include "backends/cuda/cuda_peer_transport.hpp"
#include "backends/cuda/cuda_step_graph.hpp"
#include "backends/hardware_info.hpp"

namespace kbrain {

HardwareInfo describe_cuda_device(int device);  // cuda_device_info.cpp

// One NVIDIA GPU (the one Kokkos selected), Kokkos::Cuda with device memory (no UVM).
struct CudaBackend {
  using execution_space = Kokkos::Cuda;
  using memory_space = Kokkos::CudaSpace;
  // Host buffers that MPI reads and writes when it cannot use device memory (docs/mpi.md): page-locked, so the
  // device <-> host copies are direct DMA at full PCIe / NVLink-C2C speed.
  using staging_memory_space = Kokkos::CudaHostPinnedSpace;
  // Ranks on one node copy halo blocks straight into each other's device buffers (CUDA IPC) instead of staging
  // them through MPI (docs/mpi.md, "Peer exchange"). Optional trait: backends without it use MPI only.
  using peer_transport = CudaPeerTransport;
  // Launches of one index per thread that overlap the previous launch's tail (programmatic dependent launch,
  // Hopper and later): the one-step-per-launch IO step uses it. Optional trait, like peer_transport.
  using chained_launch = CudaChainedLaunch;
  // A step's launches recorded once as a CUDA graph and replayed every step (small networks are bound by
  // launches): the point-neuron networks use it. Optional trait.
  using step_graph = CudaStepGraph;
  static constexpr const char* name = "cuda";
  static constexpr bool is_gpu = true;
  static HardwareInfo describe() { return describe_cuda_device(Kokkos::Cuda().cuda_device()); }
};

}  // namespace kbrain
