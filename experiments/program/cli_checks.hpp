#pragma once
// Checks of command-line values that CLI11 does not make: numbers that must be finite and positive (NaN passes a
// plain "> 0" test), integers that overflow their type (CLI11 2.1 would clamp them), empty strings where a name is
// expected, and lists that repeat a value (a run compared with itself). Each failure is a CLI11 validation error:
// main prints it as one line and exits with 2.
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace kbrain::cli_checks {

// A whole number in [lo, hi], written in decimal without overflow.
inline CLI::Validator integer_in(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(s.c_str(), &end, 10);
        if (s.empty() || end == s.c_str() || *end != '\0') return "'" + s + "' is not a whole number";
        if (errno == ERANGE || v < lo || v > hi)
          return "'" + s + "' is out of range (" + std::to_string(lo) + " to " + std::to_string(hi) + ")";
        return {};
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

// A finite number > 0 (or >= 0 with allow_zero).
inline CLI::Validator finite_positive(bool allow_zero = false) {
  return CLI::Validator(
      [allow_zero](std::string& s) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end == s.c_str() || *end != '\0') return "'" + s + "' is not a number";
        if (!std::isfinite(v)) return "'" + s + "' is not finite";
        if (allow_zero ? v < 0 : v <= 0) return "'" + s + "' must be " + (allow_zero ? ">= 0" : "> 0");
        return {};
      },
      allow_zero ? "NUMBER >= 0" : "NUMBER > 0");
}

// A non-empty string (a name or a path).
inline CLI::Validator non_empty() {
  return CLI::Validator([](std::string& s) -> std::string { return s.empty() ? "an empty value is not allowed" : ""; },
                        "TEXT");
}

// Throws a CLI11 validation error naming the option when a list repeats a value.
template <class T>
void require_distinct(const std::vector<T>& values, const std::string& option) {
  std::set<T> seen;
  for (const T& v : values)
    if (!seen.insert(v).second) {
      std::ostringstream text;
      text << v;
      throw CLI::ValidationError(option, "lists " + text.str() + " twice (a run would be compared with itself)");
    }
}

}  // namespace kbrain::cli_checks
