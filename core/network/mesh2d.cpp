// 2-D mesh with 8 (Moore) neighbours, non-periodic: a border cell simply has fewer incoming junctions
// (corner 3, edge 5, interior 8). Cell id = row * cols + col.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "core/network/gap_network.hpp"

namespace kbrain {

GapNetwork make_mesh2d(std::int64_t rows, std::int64_t cols, double conductance) {
  if (rows < 1 || cols < 1) {
    throw std::invalid_argument(fmt::format("mesh2d: rows and cols must be >= 1 (got {} x {})", rows, cols));
  }
  constexpr std::int64_t max_cells = std::numeric_limits<std::int32_t>::max();
  if (rows > max_cells / cols) {
    throw std::invalid_argument(
        fmt::format("mesh2d: {} x {} cells exceeds the limit of {} cells (32-bit cell ids)", rows, cols, max_cells));
  }
  if (!std::isfinite(conductance) || conductance < 0.0) {
    throw std::invalid_argument(fmt::format("mesh2d: conductance must be finite and >= 0 (got {})", conductance));
  }

  GapNetwork net;
  net.cells = rows * cols;
  net.mesh_rows = rows;
  net.mesh_cols = cols;
  net.constant_conductance = conductance;
  net.offsets.resize(static_cast<std::size_t>(net.cells) + 1);

  // Exact junction count: 8 per cell minus those pointing outside the mesh.
  const std::int64_t row_neighbour_pairs = rows * (cols - 1);        // horizontal links
  const std::int64_t col_neighbour_pairs = (rows - 1) * cols;        // vertical links
  const std::int64_t diagonal_pairs = 2 * (rows - 1) * (cols - 1);   // both diagonals
  net.sources.reserve(static_cast<std::size_t>(2 * (row_neighbour_pairs + col_neighbour_pairs + diagonal_pairs)));

  net.offsets[0] = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      // Row-major ids: iterating dr then dc in increasing order yields ascending source ids.
      for (std::int64_t dr = -1; dr <= 1; ++dr) {
        const std::int64_t nr = r + dr;
        if (nr < 0 || nr >= rows) continue;
        for (std::int64_t dc = -1; dc <= 1; ++dc) {
          if (dr == 0 && dc == 0) continue;
          const std::int64_t nc = c + dc;
          if (nc < 0 || nc >= cols) continue;
          net.sources.push_back(static_cast<std::int32_t>(nr * cols + nc));
        }
      }
      net.offsets[static_cast<std::size_t>(r * cols + c) + 1] = static_cast<std::int64_t>(net.sources.size());
    }
  }
  return net;
}

}  // namespace kbrain
