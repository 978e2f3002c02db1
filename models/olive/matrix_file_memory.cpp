#include "models/olive/matrix_file_memory.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/runtime/memory_statement.hpp"

namespace kbrain::olive {

namespace {
constexpr double kBytesPerJunction = 16.0 + 4.0 + 8.0;
constexpr double kBytesPerCell = 8.0 + 8.0 + 8.0 + 2.0 + 16.0;
}  // namespace

double matrix_read_host_bytes(std::int64_t cells, std::int64_t junctions, double state_bytes) {
  return 8.0 + (kBytesPerCell + state_bytes) * double(cells) + kBytesPerJunction * double(junctions);
}

void require_matrix_fits(const std::string& where, const std::string& file, std::int64_t cells,
                         std::int64_t junctions, double state_bytes, double available) {
  const double need = matrix_read_host_bytes(cells, junctions, state_bytes);
  if (available <= 0 || need <= available) return;
  const std::string state = state_bytes > 0 ? " and, on this CPU backend, the cells' state" : "";
  if (junctions == 0) {
    const auto largest = largest_fitting(cells, available, [&](std::int64_t c) {
      return matrix_read_host_bytes(c, 0, state_bytes);
    });
    require_host_bytes(need, available, where,
                       fmt::format("[network]: network.file: {}: the {} x {} conductance matrix (its CSR offsets, "
                                   "g_CaL{})",
                                   file, cells, cells, state),
                       fmt::format("at most {} cells fit", largest));
  }
  const double left = available - matrix_read_host_bytes(cells, 0, state_bytes);
  require_host_bytes(need, available, where,
                     fmt::format("[network]: network.file: {}: the {} x {} conductance matrix read into room for {} "
                                 "junctions (the entries read, their CSR, g_CaL{})",
                                 file, cells, cells, junctions, state),
                     fmt::format("at most {:.0f} junctions fit beside {} cells",
                                 std::max(0.0, std::floor(left / kBytesPerJunction)), cells));
}

}  // namespace kbrain::olive
