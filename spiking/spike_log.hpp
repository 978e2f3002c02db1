#pragma once
// The device spike log's default size, shared by the drivers that keep one (models/point/point_network.hpp,
// models/cortex_hh/cortex_network.hpp) and the memory planner that states it before anything is allocated
// (spiking/network_memory.hpp via models/point/spiking_run.hpp): room for 64 steps of every neuron spiking on a GPU
// (the host drains it rarely; each drain waits for the device), 2 on a CPU, within [2^20 (GPU) or 2^16, 2^26]
// events, and never fewer than one step's worth.
#include <algorithm>
#include <cstdint>

namespace kbrain::spiking {

inline std::int64_t default_spike_log_capacity(std::int64_t neurons, bool gpu) {
  const std::int64_t c = std::clamp<std::int64_t>((gpu ? 64 : 2) * neurons, std::int64_t(1) << (gpu ? 20 : 16),
                                                  std::int64_t(1) << 26);
  return std::max(c, neurons);
}

}  // namespace kbrain::spiking
