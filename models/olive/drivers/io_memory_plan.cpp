#include "models/olive/drivers/io_memory_plan.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "models/olive/cell/io_state.hpp"

namespace kbrain::olive {

std::string format_bytes(std::uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= double(1ull << 30)) return fmt::format("{:.2f} GiB", b / double(1ull << 30));
  if (b >= double(1ull << 20)) return fmt::format("{:.1f} MiB", b / double(1ull << 20));
  return fmt::format("{:.1f} KiB", b / 1024.0);
}

std::vector<MemoryItem> plan_io_memory(const IoMemoryShape& s) {
  const auto n = static_cast<std::uint64_t>(s.cells), j = static_cast<std::uint64_t>(s.junctions);
  const auto real = static_cast<std::uint64_t>(s.real_bytes);
  std::vector<MemoryItem> items;
  items.push_back({"state (2 buffers x 16 variables)", 2ull * NUM_VARS * real * n});
  items.push_back({"g_CaL", real * n});
  if (s.per_cell_stimulus) items.push_back({"per-cell stimulus", real * n});
  if (!s.mesh_kernel) {
    items.push_back({"CSR offsets", 8ull * (n + 1)});
    items.push_back({"CSR sources", 4ull * j});
    if (s.per_junction_g) items.push_back({"CSR conductances", real * j});
  }
  if (s.tiled_lists)  // each junction in one list: a 2-byte slot or a 4-byte source (bound: 4), + gap currents
    items.push_back({"tiled gap lists (bound)", 16ull * (n + 1) + 4ull * j + (s.per_junction_g ? real * j : 0) + real * n});
  if (s.generated) {
    std::uint64_t temp = s.generator_table_bytes;
    if (s.symmetric)  // the upper half network and a scatter cursor live next to the final CSR
      temp += 8ull * (n + 1) + 4ull * (j / 2 + 1) + (s.per_junction_g ? real * (j / 2 + 1) : 0) + 8ull * n;
    items.push_back({"generator temporaries", temp});
  }
  if (s.spikes) {  // IoSimulation::enable_spikes: max(2N, min(64N, 16 Mi)) events of two ints
    const std::uint64_t cap = std::max<std::uint64_t>(2 * n, std::min<std::uint64_t>(64 * n, 16ull << 20));
    items.push_back({"spike buffer", 2ull * 4ull * cap});
  }
  if (s.sampled_values > 0) items.push_back({"samplers", real * static_cast<std::uint64_t>(s.sampled_values)});
  if (s.host_network_copy)
    items.push_back({"host copy of the network", 8ull * (n + 1) + 4ull * j + (s.per_junction_g ? 8ull * j : 0)});
  return items;
}

std::uint64_t total_bytes(const std::vector<MemoryItem>& items) {
  std::uint64_t t = 0;
  for (const auto& i : items) t += i.bytes;
  return t;
}

std::int64_t largest_fitting_cells(const IoMemoryShape& shape, std::uint64_t available) {
  const double per_cell = shape.cells > 0 ? double(shape.junctions) / double(shape.cells) : 0.0;
  auto fits = [&](std::int64_t cells) {
    IoMemoryShape s = shape;
    s.cells = cells;
    s.junctions = static_cast<std::int64_t>(per_cell * double(cells));
    return total_bytes(plan_io_memory(s)) <= available;
  };
  std::int64_t lo = 0, hi = std::numeric_limits<std::int32_t>::max();
  if (fits(hi)) return hi;
  while (hi - lo > 1) {  // fits(lo) (or lo == 0), !fits(hi)
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

void require_memory(const IoMemoryShape& shape, std::uint64_t available, const std::string& device) {
  if (available == 0) return;
  const auto items = plan_io_memory(shape);
  const std::uint64_t needed = total_bytes(items);
  if (needed <= available) return;
  std::string breakdown;
  for (const auto& i : items)
    breakdown += fmt::format("{}{} {}", breakdown.empty() ? "" : ", ", i.what, format_bytes(i.bytes));
  const std::int64_t largest = largest_fitting_cells(shape, available);
  const double per_cell = shape.cells > 0 ? double(shape.junctions) / double(shape.cells) : 0.0;
  throw MemoryPlanError(fmt::format(
      "not enough memory on {}: {} cells with {} junctions need {} ({}), but {} is available; the largest network "
      "with {:.4g} junctions per cell that fits has {} cells",
      device, shape.cells, shape.junctions, format_bytes(needed), breakdown, format_bytes(available), per_cell,
      largest));
}

}  // namespace kbrain::olive
