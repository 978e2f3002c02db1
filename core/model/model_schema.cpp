#include "core/model/model_schema.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kbrain {

namespace {
std::string bound(double v) { return fmt::format("{}", v); }
}  // namespace

std::string ParameterInfo::range_text() const {
  const bool lo = std::isfinite(min), hi = std::isfinite(max);
  std::string text;
  if (lo && hi)
    text = fmt::format("in {}{}, {}{}", min_exclusive ? "(" : "[", bound(min), bound(max), max_exclusive ? ")" : "]");
  else if (lo)
    text = fmt::format("{} {}", min_exclusive ? ">" : ">=", bound(min));
  else if (hi)
    text = fmt::format("{} {}", max_exclusive ? "<" : "<=", bound(max));
  else
    text = "any number";
  return integer ? (text == "any number" ? "a whole number" : "a whole number " + text) : text;
}

std::string ParameterInfo::check(double v) const {
  const bool below = min_exclusive ? !(v > min) : !(v >= min);
  const bool above = max_exclusive ? !(v < max) : !(v <= max);
  const bool fraction = integer && std::isfinite(v) && v != std::round(v);
  if (std::isnan(v) || below || above || fraction) return fmt::format("must be {} (got {})", range_text(), v);
  return "";
}

namespace {

// The entry of `list` whose `key` member equals `name`, or null.
template <class T>
const T* find_by(const std::vector<T>& list, std::string T::*key, const std::string& name) {
  for (const auto& item : list)
    if (item.*key == name) return &item;
  return nullptr;
}

template <class T>
std::vector<std::string> names_of(const std::vector<T>& list, std::string T::*key) {
  std::vector<std::string> out;
  for (const auto& item : list) out.push_back(item.*key);
  return out;
}

}  // namespace

const ParameterInfo* ModelSchema::parameter(const std::string& name) const {
  return find_by(parameters, &ParameterInfo::name, name);
}
const VariableInfo* ModelSchema::variable(const std::string& name) const {
  return find_by(variables, &VariableInfo::name, name);
}
const ModelOption* ModelSchema::option(const std::string& key) const { return find_by(options, &ModelOption::key, key); }
std::vector<std::string> ModelSchema::parameter_names() const { return names_of(parameters, &ParameterInfo::name); }
std::vector<std::string> ModelSchema::variant_choices() const {
  for (const TableSpec& t : tables)
    for (const SettingSpec& s : t.settings)
      if (t.name + "." + s.key == variant_setting && s.kind == SettingSpec::Kind::Choice) return s.choices;
  return {};
}

std::vector<std::string> ModelSchema::variable_names() const { return names_of(variables, &VariableInfo::name); }

const ModelSchema* ModelCatalog::find(const std::string& kind) const {
  return find_by(schemas_, &ModelSchema::kind, kind);
}
std::vector<std::string> ModelCatalog::kinds() const { return names_of(schemas_, &ModelSchema::kind); }

}  // namespace kbrain
