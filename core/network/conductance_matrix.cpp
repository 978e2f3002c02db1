// Reader for the InfOli dense conductance matrix: N lines of N whitespace-separated numbers. Row i, column j is the
// conductance through which cell j RECEIVES current from cell i, so cell j's incoming junctions are the nonzero
// entries of column j (sources = row indices, ascending). 0 = no junction; the diagonal must be 0. Blank lines are
// skipped (line numbers in messages are physical lines). Format: docs/network-formats.md.
#include <charconv>
#include <cmath>
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/network/gap_network.hpp"
#include "core/text/tokens.hpp"

namespace kbrain {
namespace {
using text::is_blank_char;
using text::parse_finite;
using text::split_tokens;

struct MatrixEntry {
  std::int32_t row;  // source cell
  std::int32_t col;  // target cell
  double g;
};

// Room for one more entry: grown (doubling, at most the n (n - 1) junctions a matrix can have) only after
// `check_size` accepts the new room.
void make_room(std::vector<MatrixEntry>& entries, std::int64_t n,
               const std::function<void(std::int64_t, std::int64_t)>& check_size) {
  if (entries.size() < entries.capacity()) return;
  const auto most = static_cast<std::size_t>(n) * static_cast<std::size_t>(n - 1);
  const std::size_t room = std::min(most, std::max<std::size_t>(4096, 2 * entries.capacity()));
  if (check_size) check_size(n, static_cast<std::int64_t>(room));
  entries.reserve(room);
}

}  // namespace

GapNetwork read_conductance_matrix(const std::filesystem::path& file, std::int64_t expected_cells,
                                   const std::function<void(std::int64_t, std::int64_t)>& check_size) {
  const std::string name = file.string();
  std::ifstream in(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open conductance matrix file", name));

  std::int64_t n = -1;  // matrix side, from the first row
  std::int64_t rows = 0;
  std::int64_t line_no = 0;
  std::string line;
  std::vector<std::string_view> tokens;
  std::vector<MatrixEntry> entries;

  while (std::getline(in, line)) {
    ++line_no;
    split_tokens(line, tokens);
    if (tokens.empty()) continue;
    const auto count = static_cast<std::int64_t>(tokens.size());
    if (n < 0) {
      n = count;
      if (n > std::numeric_limits<std::int32_t>::max()) {
        throw std::runtime_error(fmt::format("{}:{}: {} columns exceed the 32-bit cell id limit", name, line_no, n));
      }
      if (expected_cells > 0 && n != expected_cells) {
        throw std::runtime_error(fmt::format("{}:{}: matrix has {} columns ({} cells), expected {} cells", name,
                                             line_no, n, n, expected_cells));
      }
      if (check_size) check_size(n, 0);  // N sizes the CSR offsets and the caller's per-cell arrays
    } else if (count != n) {
      throw std::runtime_error(
          fmt::format("{}:{}: line {} has {} values, expected {}", name, line_no, line_no, count, n));
    }
    if (rows == n) {
      throw std::runtime_error(fmt::format("{}:{}: matrix has more than {} rows; it must be square ({} x {})", name,
                                           line_no, n, n, n));
    }
    const auto row = static_cast<std::int32_t>(rows);
    for (std::int64_t c = 0; c < count; ++c) {
      const std::string_view token = tokens[static_cast<std::size_t>(c)];
      double g = 0.0;
      if (!parse_finite(token, g)) {
        throw std::runtime_error(
            fmt::format("{}:{}: column {}: {} is not a finite number", name, line_no, c + 1, text::quoted_token(token)));
      }
      if (g < 0.0) {
        throw std::runtime_error(
            fmt::format("{}:{}: column {}: negative conductance {}", name, line_no, c + 1, token));
      }
      if (g == 0.0) continue;
      if (c == row) {
        throw std::runtime_error(fmt::format(
            "{}:{}: diagonal entry (cell {}) is {}; a cell has no junction with itself, it must be 0", name, line_no,
            row, token));
      }
      make_room(entries, n, check_size);
      entries.push_back({row, static_cast<std::int32_t>(c), g});
    }
    ++rows;
  }
  if (in.bad()) throw std::runtime_error(fmt::format("{}:{}: read error", name, line_no + 1));
  if (n < 0) {
    throw std::runtime_error(fmt::format("{}: empty file, expected an N x N conductance matrix", name));
  }
  if (rows < n) {
    throw std::runtime_error(fmt::format("{}:{}: matrix ends after {} rows of {} values; it must be square ({} x {})",
                                         name, line_no, rows, n, n, n));
  }

  // Group by column (target). Entries are in row order, so a stable counting sort keeps sources ascending.
  GapNetwork net;
  net.cells = n;
  net.offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  for (const MatrixEntry& e : entries) ++net.offsets[static_cast<std::size_t>(e.col) + 1];
  for (std::size_t i = 1; i < net.offsets.size(); ++i) net.offsets[i] += net.offsets[i - 1];

  std::vector<std::int64_t> cursor(net.offsets.begin(), net.offsets.end() - 1);
  net.sources.resize(entries.size());
  std::vector<double> g(entries.size());
  bool all_equal = true;
  for (const MatrixEntry& e : entries) {
    const auto k = static_cast<std::size_t>(cursor[static_cast<std::size_t>(e.col)]++);
    net.sources[k] = e.row;
    g[k] = e.g;
    all_equal = all_equal && e.g == entries.front().g;
  }
  if (all_equal) {
    net.constant_conductance = entries.empty() ? 0.0 : entries.front().g;
  } else {
    net.conductance = std::move(g);
  }
  return net;
}

}  // namespace kbrain
