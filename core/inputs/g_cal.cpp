// Per-cell g_CaL: constant, uniform in [low, high) keyed on (seed, cell id) — so a cell gets the same value whatever
// the network size, backend or partitioning — or read from a file of whitespace-separated numbers, one per cell.
#include "core/inputs/g_cal.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/rng/counter_rng.hpp"
#include "core/text/tokens.hpp"

namespace kbrain {
namespace {
using text::is_blank_char;
using text::parse_finite;
using text::split_tokens;



std::vector<double> read_g_cal_file(const std::filesystem::path& file, std::int64_t cells) {
  const std::string name = file.string();
  if (file.empty()) throw ConfigError("g_cal kind \"file\" needs a file");
  std::ifstream in(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open g_CaL file", name));

  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(cells));
  std::string line;
  std::int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string_view text = line;
    std::size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && is_blank_char(text[i])) ++i;
      const std::size_t begin = i;
      while (i < text.size() && !is_blank_char(text[i])) ++i;
      if (i == begin) continue;
      const std::string_view token = text.substr(begin, i - begin);
      double g = 0.0;
      if (!parse_finite(token, g)) {
        throw std::runtime_error(fmt::format("{}:{}: {} is not a finite number", name, line_no, text::quoted_token(token)));
      }
      if (g < 0.0) throw std::runtime_error(fmt::format("{}:{}: negative g_CaL {}", name, line_no, token));
      values.push_back(g);
    }
  }
  if (in.bad()) throw std::runtime_error(fmt::format("{}:{}: read error", name, line_no + 1));
  if (static_cast<std::int64_t>(values.size()) != cells) {
    throw std::runtime_error(fmt::format("{}: found {} values, expected {} (one per cell)", name, values.size(), cells));
  }
  return values;
}

}  // namespace

std::vector<double> make_g_cal(const GCaLConfig& cfg, std::int64_t cells) {
  if (cells < 0) throw std::invalid_argument(fmt::format("make_g_cal: negative cell count {}", cells));
  if (cfg.kind == "constant") {
    if (!std::isfinite(cfg.value) || cfg.value < 0.0) {
      throw ConfigError(fmt::format("g_cal value must be finite and >= 0 (got {})", cfg.value));
    }
    return std::vector<double>(static_cast<std::size_t>(cells), cfg.value);
  }
  if (cfg.kind == "uniform") {
    if (!std::isfinite(cfg.low) || !std::isfinite(cfg.high) || cfg.low < 0.0 || cfg.high < cfg.low) {
      throw ConfigError(
          fmt::format("g_cal uniform needs 0 <= low <= high (got low = {}, high = {})", cfg.low, cfg.high));
    }
    std::vector<double> values(static_cast<std::size_t>(cells));
    for (std::int64_t cell = 0; cell < cells; ++cell) {
      values[static_cast<std::size_t>(cell)] =
          cfg.low + (cfg.high - cfg.low) * counter_uniform(cfg.seed, static_cast<std::uint64_t>(cell), 0);
    }
    return values;
  }
  if (cfg.kind == "file") return read_g_cal_file(cfg.file, cells);
  throw ConfigError(fmt::format("unknown g_cal kind \"{}\" (allowed: constant, uniform, file)", cfg.kind));
}

}  // namespace kbrain
