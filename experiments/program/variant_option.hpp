#pragma once
// --variant / --variants: values of the model's variant setting (ModelSchema::variant_setting), checked against its
// choices before anything runs, with the same words as the config error for compare.variants.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/registry.hpp"

namespace kbrain {

inline void check_variants(const ExperimentConfig& cfg, const std::vector<std::string>& values, const char* flag) {
  if (values.empty()) return;
  const ModelSchema* schema = model_catalog().find(cfg.model);
  const std::vector<std::string> choices = schema ? schema->variant_choices() : std::vector<std::string>{};
  std::string listed;
  for (const auto& c : choices) listed += (listed.empty() ? "" : ", ") + c;
  for (const auto& v : values)
    if (std::find(choices.begin(), choices.end(), v) == choices.end())
      throw ConfigError(choices.empty() ? fmt::format("{}: model.kind \"{}\" has no variants", flag, cfg.model)
                                        : fmt::format("{}: '{}' is not a value of {} ({})", flag, v,
                                                      schema->variant_setting, listed));
}

}  // namespace kbrain
