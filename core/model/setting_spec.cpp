#include "core/model/setting_spec.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kbrain {

SettingSpec SettingSpec::number(std::string key, double min, double max, double fallback, std::string doc) {
  return {std::move(key), Kind::Number, min, max, {}, fmt::format("{}", fallback), false, std::move(doc)};
}

std::string SettingSpec::range_text() const {
  const bool lo = std::isfinite(min), hi = std::isfinite(max);
  if (lo && hi) return fmt::format("in [{}, {}]", min, max);
  if (lo) return fmt::format(">= {}", min);
  if (hi) return fmt::format("<= {}", max);
  return "";
}

std::string SettingSpec::type_text() const {
  const std::string range = range_text();
  const auto with_range = [&](const char* what) { return range.empty() ? std::string(what) : fmt::format("{} {}", what, range); };
  switch (kind) {
    case Kind::Integer: return with_range("an integer");
    case Kind::Number: return with_range("a number");
    case Kind::Choice: {
      std::string list;
      for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
      return "one of " + list;
    }
    case Kind::Boolean: return "true or false";
    case Kind::File: return "a file path, relative to the experiment file's directory";
    case Kind::IntegerList: return with_range("an array of integers");
  }
  return "";
}

}  // namespace kbrain
