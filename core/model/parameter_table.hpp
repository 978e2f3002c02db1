#pragma once
// A model's parameter table: each entry binds a name of `[model.parameters]` to a member of the model's parameter
// struct, with unit, bounds and documentation (ParameterInfo). The table gives the schema its parameter list
// (validation) and applies validated overrides to the struct (the plan), so the two can never disagree.
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/model/model_schema.hpp"

namespace kbrain {

template <class Params>
class ParameterTable {
 public:
  struct Entry {
    ParameterInfo info;
    double Params::*real = nullptr;
    int Params::*whole = nullptr;
  };

  // A real-valued parameter: name, member, unit, bounds (ParameterInfo fields), doc.
  static Entry real(std::string name, double Params::*member, std::string unit, ParameterInfo bounds = {},
                    std::string doc = "") {
    bounds.name = std::move(name);
    bounds.unit = std::move(unit);
    bounds.doc = std::move(doc);
    return Entry{std::move(bounds), member, nullptr};
  }
  // A whole-number parameter (counts).
  static Entry whole(std::string name, int Params::*member, ParameterInfo bounds = {}, std::string doc = "") {
    bounds.name = std::move(name);
    bounds.unit = "1";
    bounds.integer = true;
    bounds.doc = std::move(doc);
    return Entry{std::move(bounds), nullptr, member};
  }

  ParameterTable(std::initializer_list<Entry> entries) : entries_(entries) {}

  // The schema's view, defaults taken from `defaults` (the model's default parameter set).
  std::vector<ParameterInfo> infos(const Params& defaults) const {
    std::vector<ParameterInfo> out;
    for (const auto& e : entries_) {
      ParameterInfo i = e.info;
      i.default_value = e.real ? defaults.*(e.real) : double(defaults.*(e.whole));
      out.push_back(std::move(i));
    }
    return out;
  }

  // Sets `name` in p; throws std::invalid_argument for a name the table does not hold or a value out of bounds
  // (config validation has already refused both with the file's line; this guards programmatic use).
  void apply(Params& p, const std::string& name, double value) const {
    for (const auto& e : entries_) {
      if (e.info.name != name) continue;
      const std::string problem = e.info.check(value);
      if (!problem.empty()) throw std::invalid_argument("parameter " + name + " " + problem);
      if (e.real)
        p.*(e.real) = value;
      else
        p.*(e.whole) = static_cast<int>(value);
      return;
    }
    throw std::invalid_argument("'" + name + "' is not a parameter of this model");
  }

  void apply_all(Params& p, const std::vector<std::pair<std::string, double>>& overrides) const {
    for (const auto& [name, value] : overrides) apply(p, name, value);
  }

 private:
  std::vector<Entry> entries_;
};

// Bounds shorthands for tables.
inline ParameterInfo positive() { ParameterInfo i; i.min = 0; i.min_exclusive = true; return i; }
inline ParameterInfo non_negative() { ParameterInfo i; i.min = 0; return i; }
inline ParameterInfo open_unit_interval() {
  ParameterInfo i;
  i.min = 0; i.max = 1; i.min_exclusive = i.max_exclusive = true;
  return i;
}
inline ParameterInfo any_value() { return ParameterInfo{}; }

}  // namespace kbrain
