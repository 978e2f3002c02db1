#pragma once
// What a model declares about itself, once, next to its kernels: its kind name, its parameters (name, unit, bounds,
// default), the variables a run can record, and the choices its experiment files may make. Config validation reads
// these tables (core/config), so a model's names live in one place and two models' parameters never clash.
// Host-only plain data; a model's folder fills it in (models/<model>/<model>_schema.cpp), models/registry.hpp
// collects every model's schemas into the ModelCatalog that load_experiment() takes.
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/model/setting_spec.hpp"

namespace kbrain {

// One entry of a parameter table: `[model.parameters] name = value` must lie within the bounds.
struct ParameterInfo {
  std::string name;
  std::string unit;           // "mV", "nS", "ms", "1" ...
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false, max_exclusive = false;
  bool integer = false;       // a whole number (counts)
  double default_value = std::nan("");  // of the model's default parameter set (NaN: set per neuron)
  std::string doc;

  // "" when v is allowed, else what is required ("must be > 0 (got -1)").
  std::string check(double v) const;
  std::string range_text() const;  // e.g. "> 0", "in (0, 1)", ">= 0", "any number"
};

struct VariableInfo {
  std::string name;
  std::string unit;
  // The largest magnitude a healthy run holds: a value beyond it stops the run like NaN or infinity does (checked
  // with the finite check). Infinite: finite values are never refused. `[simulation.plausible] name = bound` in an
  // experiment sets another.
  double plausible = std::numeric_limits<double>::infinity();
};

// The plausible bound of a membrane potential: no cell holds 10 V; a state beyond it is a blow-up on its way to
// infinity, not a result.
inline constexpr double kPlausibleMembraneMv = 1e4;
// The bound a variable of this unit gets by default: potentials (mV) kPlausibleMembraneMv, anything else none.
inline double plausible_bound_for_unit(const std::string& unit) {
  return unit == "mV" ? kPlausibleMembraneMv : std::numeric_limits<double>::infinity();
}

// A setting of `[simulation]` that only this model has, e.g. the IO model's gap_kernel = "auto|fused|split|tiled".
struct ModelOption {
  std::string key;
  std::vector<std::string> choices;  // the first is the default
  std::string doc;
};

struct ModelSchema {
  std::string kind;           // model.kind in experiment files
  std::string summary;        // one line for `kbrain models` and error messages
  // Which tables an experiment file of this model has besides [model] and [simulation]:
  //   gap_network:     [network] gap-junction network, [cells.g_cal], [stimulus], [record], [compare]
  //   spiking_network: [network] random E/I network, [[input]], [record], [compare]
  //   model_tables:    the tables the model declares in `tables`, plus [record] and [compare]
  std::string family;
  std::vector<ParameterInfo> parameters;
  std::vector<VariableInfo> variables;   // recordable state, in the model's variable order
  std::vector<std::string> parameter_sets;   // model.parameter_set choices (the first is the default)
  std::vector<std::string> integrators;      // model.integrator choices (spiking models; empty: no such key)
  std::vector<std::string> synapses;         // model.synapse choices (spiking models)
  std::vector<ModelOption> options;          // [simulation] keys of this model
  std::vector<TableSpec> tables;             // family model_tables: the model's own tables (and [simulation] keys)
  // A Choice key of `tables` ("table.key") whose values `[compare] variants` may sweep, e.g. two implementations of
  // one stage compared in one table; empty: the model has no variants.
  std::string variant_setting;

  const ParameterInfo* parameter(const std::string& name) const;
  const ModelOption* option(const std::string& key) const;
  std::vector<std::string> parameter_names() const;
  std::vector<std::string> variable_names() const;
  const VariableInfo* variable(const std::string& name) const;
  std::vector<std::string> variant_choices() const;  // the choices of variant_setting; empty: no variants
};

// Every model kind this build knows, for config validation and `kbrain models`.
class ModelCatalog {
 public:
  ModelCatalog() = default;
  explicit ModelCatalog(std::vector<ModelSchema> schemas) : schemas_(std::move(schemas)) {}
  const ModelSchema* find(const std::string& kind) const;
  std::vector<std::string> kinds() const;
  const std::vector<ModelSchema>& schemas() const { return schemas_; }

 private:
  std::vector<ModelSchema> schemas_;
};

}  // namespace kbrain
