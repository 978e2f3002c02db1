#pragma once
// Which GPU a process uses: the one asked for (--device), else, for a rank that mpirun started, its node-local rank
// modulo the GPUs the node has (one GPU per rank), else the backend's default.
namespace kbrain {

// GPUs this process can see: 0 in builds without a GPU backend (backends/cuda/cuda_device_info.cpp, else
// backends/no_gpu.cpp).
int visible_gpus();

inline int choose_device(int requested, int node_local_rank) {
  if (requested >= 0 || node_local_rank < 0) return requested;
  const int gpus = visible_gpus();
  return gpus > 0 ? node_local_rank % gpus : requested;
}

}  // namespace kbrain
