// `kbrain models`: the catalogue of models as they declare themselves (models/registry.hpp): kind, summary, parameter
// table with units, bounds and defaults, recordable variables, parameter sets, [simulation] options and the tables
// a model declares of its own.
#include <cmath>

#include <fmt/format.h>

#include "experiments/program/commands.hpp"
#include "models/registry.hpp"

namespace kbrain {

int cmd_models() {
  for (const ModelSchema& s : model_catalog().schemas()) {
    fmt::print("{} — {}\n", s.kind, s.summary);
    std::string sets;
    for (const auto& n : s.parameter_sets) sets += (sets.empty() ? "" : ", ") + n;
    if (!sets.empty()) fmt::print("  parameter sets: {}\n", sets);
    fmt::print("  [model.parameters]:\n");
    for (const ParameterInfo& p : s.parameters)
      fmt::print("    {:<12} {:<9} {:<16} default {:<10} {}\n", p.name, p.unit, p.range_text(),
                 std::isnan(p.default_value) ? std::string("per cell") : fmt::format("{}", p.default_value), p.doc);
    std::string vars;
    for (const auto& v : s.variables) vars += (vars.empty() ? "" : ", ") + v.name;
    fmt::print("  record.variables: {}\n", vars);
    std::string bounds;
    for (const auto& v : s.variables)
      if (std::isfinite(v.plausible))
        bounds += fmt::format("{}|{}| <= {} {}", bounds.empty() ? "" : ", ", v.name, v.plausible, v.unit);
    if (!bounds.empty())
      fmt::print("  [simulation.plausible] (the run stops beyond these, as on NaN; set others there): {}\n", bounds);
    for (const ModelOption& o : s.options) {
      std::string choices;
      for (const auto& c : o.choices) choices += (choices.empty() ? "" : " | ") + c;
      fmt::print("  [simulation] {} = {} (default {}): {}\n", o.key, choices, o.choices.front(), o.doc);
    }
    if (!s.variant_setting.empty()) {
      std::string choices;
      for (const auto& c : s.variant_choices()) choices += (choices.empty() ? "" : ", ") + c;
      fmt::print("  variants (compare.variants, --variants, run --variant): {} = {}\n", s.variant_setting, choices);
    }
    for (const TableSpec& t : s.tables) {
      fmt::print("  [{}]:\n", t.name);
      for (const SettingSpec& k : t.settings)
        fmt::print("    {:<16} {:<40} {:<12} {}\n", k.key, k.type_text(),
                   k.required ? std::string("required") : fmt::format("default {}", k.default_text.empty() ? "none" : k.default_text),
                   k.doc);
    }
    fmt::print("\n");
  }
  return 0;
}

}  // namespace kbrain
