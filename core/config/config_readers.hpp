#pragma once
// Typed, range-checked readers shared by the experiment loader's parts (core/config/*.cpp only; pulls in toml++).
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "core/config/toml_reader.hpp"

namespace kbrain::config_detail {

namespace fs = std::filesystem;

// Cell indices are 32-bit in the network CSR (core/network/gap_network.hpp).
constexpr std::int64_t kMaxCells = std::numeric_limits<std::int32_t>::max();

enum class Bound { Any, NonNegative, Positive };

inline double read_number(TableReader& t, std::string_view key, std::optional<double> fallback, Bound bound) {
  const char* requirement = bound == Bound::Positive ? "a number > 0" : bound == Bound::NonNegative ? "a number >= 0"
                                                                                                   : "a number";
  std::optional<double> v = t.get_number(key);
  if (!v) {
    if (fallback) return *fallback;
    t.fail_missing(key, requirement);
  }
  if ((bound == Bound::Positive && !(*v > 0)) || (bound == Bound::NonNegative && !(*v >= 0)))
    t.fail(key, fmt::format("must be {} (got {})", requirement, *v));
  return *v;
}

inline std::int64_t read_integer(TableReader& t, std::string_view key, std::optional<std::int64_t> fallback,
                          std::int64_t min, std::int64_t max = std::numeric_limits<std::int64_t>::max()) {
  std::optional<std::int64_t> v = t.get_integer(key);
  if (!v) {
    if (fallback) return *fallback;
    t.fail_missing(key, fmt::format("an integer >= {}", min));
  }
  if (*v < min) t.fail(key, fmt::format("must be an integer >= {} (got {})", min, *v));
  if (*v > max) t.fail(key, fmt::format("must be an integer <= {} (got {})", max, *v));
  return *v;
}

inline bool read_bool(TableReader& t, std::string_view key, bool fallback) { return t.get_bool(key).value_or(fallback); }

// A file named by `key`, resolved against the experiment file's directory; it must exist.
inline fs::path read_existing_file(TableReader& t, std::string_view key, const fs::path& base_dir) {
  const std::string name = t.require_string(key, "a file path, relative to the experiment file's directory");
  if (name.empty()) t.fail(key, "must not be empty (a file path, relative to the experiment file's directory)");
  fs::path resolved = fs::path(name).is_absolute() ? fs::path(name) : (base_dir / name);
  resolved = resolved.lexically_normal();
  std::error_code ec;
  const fs::file_status status = fs::status(resolved, ec);
  if (!fs::exists(status))
    t.fail(key, fmt::format("names \"{}\", which does not exist (resolved to {}; relative paths are taken from "
                            "the experiment file's directory)",
                            name, resolved.string()));
  if (fs::is_directory(status))
    t.fail(key, fmt::format("names \"{}\", which is a directory, not a file (resolved to {})", name,
                            resolved.string()));
  return resolved;
}

// [network] (core/config/network_config.cpp); sets cfg.network.
void read_network(TableReader& root, ExperimentConfig& cfg, const fs::path& base_dir);

}  // namespace kbrain::config_detail
