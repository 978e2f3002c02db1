// Reader for the kbrain sparse edge list (docs/network-formats.md):
//   # kbrain edge list v1          '#' starts a comment (anywhere on a line); blank lines are ignored
//   cells 1000                     required, the first non-comment line
//   conductance 0.04               optional, before the first junction; only with 2-column junction lines
//   <target> <source> [g]          one junction per line: `target` receives current from `source`
// Either every junction line has a conductance or none does (then all get the `conductance` header, default 0.04).
#include <algorithm>
#include <charconv>
#include <cmath>
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

constexpr double kDefaultConductance = 0.04;




bool parse_integer(std::string_view token, std::int64_t& value) {
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && end == token.data() + token.size();
}

struct Edge {
  std::int32_t target;
  std::int32_t source;
  double g;
  std::int64_t line;
};

class EdgeListParser {
 public:
  EdgeListParser(const std::filesystem::path& file, std::int64_t expected_cells,
                 const std::function<void(std::int64_t)>& check_cells)
      : name_(file.string()), expected_cells_(expected_cells), check_cells_(check_cells) {}

  GapNetwork parse(std::istream& in) {
    std::string line;
    std::vector<std::string_view> tokens;
    while (std::getline(in, line)) {
      ++line_no_;
      split_tokens(line, tokens, '#');
      if (tokens.empty()) continue;
      if (cells_ < 0) {
        parse_cells_header(tokens);
      } else if (tokens[0] == "conductance") {
        parse_conductance_header(tokens);
      } else if (tokens[0] == "cells") {
        fail(fmt::format("second 'cells' header (the first is on line {})", cells_line_));
      } else {
        parse_junction(tokens);
      }
    }
    if (in.bad()) fail("read error");
    if (cells_ < 0) {
      throw std::runtime_error(fmt::format("{}: missing header 'cells <N>' (no non-comment line)", name_));
    }
    return build();
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(fmt::format("{}:{}: {}", name_, line_no_, what));
  }

  void parse_cells_header(const std::vector<std::string_view>& tokens) {
    if (tokens[0] != "cells") {
      fail(fmt::format("missing header: expected 'cells <N>' as the first non-comment line, found {}",
                       text::quoted_token(tokens[0])));
    }
    std::int64_t n = 0;
    if (tokens.size() != 2 || !parse_integer(tokens[1], n)) fail("malformed header, expected 'cells <N>'");
    if (n < 1 || n > std::numeric_limits<std::int32_t>::max()) {
      fail(fmt::format("cells {} out of range [1, {}]", n, std::numeric_limits<std::int32_t>::max()));
    }
    if (expected_cells_ > 0 && n != expected_cells_) {
      fail(fmt::format("file declares cells {}, expected {} cells", n, expected_cells_));
    }
    if (check_cells_) check_cells_(n);  // the count sizes the CSR offsets: refused here, before they exist
    cells_ = n;
    cells_line_ = line_no_;
  }

  void parse_conductance_header(const std::vector<std::string_view>& tokens) {
    if (conductance_line_ > 0) fail(fmt::format("second 'conductance' header (first on line {})", conductance_line_));
    if (!edges_.empty()) fail("the 'conductance' header must come before the first junction");
    double g = 0.0;
    if (tokens.size() != 2) fail("malformed header, expected 'conductance <g>'");
    if (!parse_finite(tokens[1], g)) fail(fmt::format("{} is not a finite number", text::quoted_token(tokens[1])));
    if (g < 0.0) fail(fmt::format("negative conductance {}", tokens[1]));
    constant_ = g;
    conductance_line_ = line_no_;
  }

  std::int32_t parse_cell_id(std::string_view token, const char* role) const {
    std::int64_t id = 0;
    if (!parse_integer(token, id)) fail(fmt::format("{} is not a cell id ({})", text::quoted_token(token), role));
    if (id < 0 || id >= cells_) fail(fmt::format("{} {} out of range [0, {})", role, id, cells_));
    return static_cast<std::int32_t>(id);
  }

  void parse_junction(const std::vector<std::string_view>& tokens) {
    const std::size_t columns = tokens.size();
    if (columns < 2 || columns > 3) {
      fail(fmt::format("expected '<target> <source> [conductance]', found {} value(s)", columns));
    }
    const std::int32_t target = parse_cell_id(tokens[0], "target");
    const std::int32_t source = parse_cell_id(tokens[1], "source");
    if (target == source) fail(fmt::format("self junction: cell {} cannot receive from itself", target));

    if (first_junction_line_ == 0) {
      first_columns_ = columns;
      first_junction_line_ = line_no_;
    } else if (columns != first_columns_) {
      fail(fmt::format("{} columns, but line {} has {}; either every junction line gives a conductance or none does",
                       columns, first_junction_line_, first_columns_));
    }
    double g = constant_;
    if (columns == 3) {
      if (conductance_line_ > 0) {
        fail(fmt::format("per-junction conductance, but line {} sets a constant 'conductance'; use one or the other",
                         conductance_line_));
      }
      if (!parse_finite(tokens[2], g)) fail(fmt::format("{} is not a finite number", text::quoted_token(tokens[2])));
      if (g < 0.0) fail(fmt::format("negative conductance {}", tokens[2]));
    }
    edges_.push_back({target, source, g, line_no_});
  }

  GapNetwork build() {
    std::sort(edges_.begin(), edges_.end(), [](const Edge& a, const Edge& b) {
      if (a.target != b.target) return a.target < b.target;
      if (a.source != b.source) return a.source < b.source;
      return a.line < b.line;
    });
    for (std::size_t k = 1; k < edges_.size(); ++k) {
      const Edge& prev = edges_[k - 1];
      const Edge& cur = edges_[k];
      if (prev.target == cur.target && prev.source == cur.source) {
        throw std::runtime_error(fmt::format("{}:{}: duplicate junction {} <- {} (first on line {})", name_, cur.line,
                                             cur.target, cur.source, prev.line));
      }
    }

    GapNetwork net;
    net.cells = cells_;
    net.offsets.assign(static_cast<std::size_t>(cells_) + 1, 0);
    net.sources.reserve(edges_.size());
    std::vector<double> g;
    g.reserve(first_columns_ == 3 ? edges_.size() : 0);
    bool all_equal = true;
    for (const Edge& e : edges_) {
      ++net.offsets[static_cast<std::size_t>(e.target) + 1];
      net.sources.push_back(e.source);
      if (first_columns_ == 3) g.push_back(e.g);
      all_equal = all_equal && e.g == edges_.front().g;
    }
    for (std::size_t i = 1; i < net.offsets.size(); ++i) net.offsets[i] += net.offsets[i - 1];
    if (first_columns_ == 3 && !all_equal) {
      net.conductance = std::move(g);
    } else {
      net.constant_conductance = first_columns_ == 3 ? edges_.front().g : constant_;
    }
    return net;
  }

  std::string name_;
  std::int64_t expected_cells_;
  std::int64_t line_no_ = 0;
  std::int64_t cells_ = -1;
  std::int64_t cells_line_ = 0;
  double constant_ = kDefaultConductance;
  std::int64_t conductance_line_ = 0;
  std::size_t first_columns_ = 0;
  std::int64_t first_junction_line_ = 0;
  std::vector<Edge> edges_;
  const std::function<void(std::int64_t)>& check_cells_;
};

}  // namespace

GapNetwork read_edge_list(const std::filesystem::path& file, std::int64_t expected_cells,
                          const std::function<void(std::int64_t)>& check_cells) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open edge list file", file.string()));
  return EdgeListParser(file, expected_cells, check_cells).parse(in);
}

}  // namespace kbrain
