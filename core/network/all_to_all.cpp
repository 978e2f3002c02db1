// All-to-all network: every cell receives from every other cell (sources ascending), one constant conductance.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "core/network/gap_network.hpp"

namespace kbrain {

GapNetwork make_all_to_all(std::int64_t cells, double conductance) {
  if (cells < 1) {
    throw std::invalid_argument(fmt::format("all_to_all: cells must be >= 1 (got {})", cells));
  }
  constexpr std::int64_t max_cells = std::numeric_limits<std::int32_t>::max();
  if (cells > max_cells) {
    throw std::invalid_argument(
        fmt::format("all_to_all: {} cells exceeds the limit of {} cells (32-bit cell ids)", cells, max_cells));
  }
  // cells * (cells - 1) cannot overflow int64 for cells < 2^31; refuse sizes whose CSR would not fit in memory.
  constexpr std::int64_t max_junctions = std::int64_t{1} << 33;  // 32 GiB of source ids
  const std::int64_t junctions = cells * (cells - 1);
  if (junctions > max_junctions) {
    throw std::invalid_argument(fmt::format(
        "all_to_all: {} cells would need {} junctions (limit {}); use a sparser network", cells, junctions,
        max_junctions));
  }
  if (!std::isfinite(conductance) || conductance < 0.0) {
    throw std::invalid_argument(fmt::format("all_to_all: conductance must be finite and >= 0 (got {})", conductance));
  }

  GapNetwork net;
  net.cells = cells;
  net.constant_conductance = conductance;
  net.offsets.resize(static_cast<std::size_t>(cells) + 1);
  net.sources.reserve(static_cast<std::size_t>(junctions));
  net.offsets[0] = 0;
  for (std::int64_t target = 0; target < cells; ++target) {
    for (std::int64_t source = 0; source < cells; ++source) {
      if (source != target) net.sources.push_back(static_cast<std::int32_t>(source));
    }
    net.offsets[static_cast<std::size_t>(target) + 1] = static_cast<std::int64_t>(net.sources.size());
  }
  return net;
}

}  // namespace kbrain
