#pragma once
// Memory planner for one IO run: the bytes every structure needs on the simulating device (state, g_CaL, the
// gap-junction CSR, generator temporaries, spike buffer, samplers), computed before anything is allocated, and a
// refusal with a clear message when they do not fit. Host arithmetic only.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbrain::olive {

struct MemoryPlanError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct MemoryItem {
  std::string what;
  std::uint64_t bytes = 0;
};

struct IoMemoryShape {
  std::int64_t cells = 0;
  std::int64_t junctions = 0;          // stored incoming junctions (generated networks: a high-probability bound)
  bool mesh_kernel = false;            // no CSR on the device
  bool per_junction_g = false;         // conductance array (else one constant)
  int real_bytes = 8;                  // sizeof(Real)
  bool spikes = true;
  bool per_cell_stimulus = false;
  std::int64_t sampled_values = 0;     // sample buffer entries (trace + probes)
  bool generated = false, symmetric = false;
  std::uint64_t generator_table_bytes = 0;
  bool host_network_copy = false;      // CPU backends: the host GapNetwork shares the same memory
  bool tiled_lists = false;            // the brick-tiled gap kernel's lists (io_gap_tiled.hpp) next to the CSR
};

std::vector<MemoryItem> plan_io_memory(const IoMemoryShape& shape);
std::uint64_t total_bytes(const std::vector<MemoryItem>& items);

// Largest cell count whose plan fits in `available` bytes, with the same junctions per cell (0 if none).
std::int64_t largest_fitting_cells(const IoMemoryShape& shape, std::uint64_t available);

// Throws MemoryPlanError ("needs X (breakdown) but Y is available on <device>; the largest ... that fits has N
// cells") when the plan exceeds `available`. `available` = 0 means unknown: no check.
void require_memory(const IoMemoryShape& shape, std::uint64_t available, const std::string& device);

std::string format_bytes(std::uint64_t bytes);

}  // namespace kbrain::olive
