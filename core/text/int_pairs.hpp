#pragma once
// Text files of integer pairs "a b", one per line, '#' starts a comment, blank lines skipped: the adex_costa
// connection file ("pre post") and spike-time file ("source step"). In core, apart from the model, so that the fuzz
// targets (tests/fuzz) read them without building the model.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "core/config/experiment_config.hpp"

namespace kbrain::text {

// Calls add(a, b) for every pair, in file order. `check(a, b)` returns "" or a problem; a problem, a line that is
// not two integers, or an unreadable file throws ConfigError naming the file (and line). `what` names the columns.
template <class Check, class Add>
void read_int_pairs(const std::filesystem::path& file, const char* what, Check check, Add add) {
  std::ifstream in(file);
  if (!in) throw ConfigError(fmt::format("{}: cannot read the {} file", file.string(), what));
  std::string line;
  for (std::int64_t number = 1; std::getline(in, line); ++number) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    long long a = 0, b = 0;
    std::string extra;
    const auto malformed = [&] {
      return ConfigError(fmt::format("{}:{}: expected two integers '{}' (got \"{}\")", file.string(), number, what,
                                     line));
    };
    if (!(fields >> a)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      throw malformed();
    }
    if (!(fields >> b) || (fields >> extra)) throw malformed();
    const std::string problem = check(a, b);
    if (!problem.empty()) throw ConfigError(fmt::format("{}:{}: {}", file.string(), number, problem));
    add(a, b);
  }
}

}  // namespace kbrain::text
