#include "core/config/model_settings.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/config/experiment_config.hpp"

namespace kbrain {

bool ModelSettings::has(const std::string& key) const {
  for (const auto& v : values_)
    if (v.key == key) return true;
  return false;
}

const SettingValue& ModelSettings::get(const std::string& key) const {
  for (const auto& v : values_)
    if (v.key == key) return v;
  throw std::logic_error(fmt::format("model setting \"{}\" is not declared in the model's schema", key));
}

SettingValue& ModelSettings::at(const std::string& key) { return const_cast<SettingValue&>(get(key)); }

void ModelSettings::put(SettingValue value) {
  for (auto& v : values_)
    if (v.key == value.key) {
      v = std::move(value);
      return;
    }
  values_.push_back(std::move(value));
}

void ModelSettings::fail(const std::string& key, const std::string& text) const {
  const SettingValue& v = get(key);
  throw ConfigError(fmt::format("{}: {} {}", v.where, key, text));
}

}  // namespace kbrain
