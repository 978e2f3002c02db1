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

const ParameterInfo* ModelSchema::parameter(const std::string& name) const {
  for (const auto& p : parameters)
    if (p.name == name) return &p;
  return nullptr;
}

const ModelOption* ModelSchema::option(const std::string& key) const {
  for (const auto& o : options)
    if (o.key == key) return &o;
  return nullptr;
}

std::vector<std::string> ModelSchema::parameter_names() const {
  std::vector<std::string> out;
  for (const auto& p : parameters) out.push_back(p.name);
  return out;
}

std::vector<std::string> ModelSchema::variable_names() const {
  std::vector<std::string> out;
  for (const auto& v : variables) out.push_back(v.name);
  return out;
}

const ModelSchema* ModelCatalog::find(const std::string& kind) const {
  for (const auto& s : schemas_)
    if (s.kind == kind) return &s;
  return nullptr;
}

std::vector<std::string> ModelCatalog::kinds() const {
  std::vector<std::string> out;
  for (const auto& s : schemas_) out.push_back(s.kind);
  return out;
}

}  // namespace kbrain
