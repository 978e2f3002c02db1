#pragma once
// The plausible bound of each variable a plan checks: the experiment's `[simulation.plausible] name = bound`, else the
// bound the model declares with the variable (VariableInfo::plausible in its schema), else none. A value beyond its
// bound stops the run as NaN does (models/runtime/model_runner.hpp): a state of 1e299 mV is no result either.
#include <limits>
#include <type_traits>

#include "core/config/experiment_config.hpp"
#include "core/model/model_schema.hpp"
#include "models/runtime/run_plan.hpp"

namespace kbrain {

inline void set_plausible_bounds(RunPlan& plan, const ModelSchema& schema, const ExperimentConfig& cfg) {
  plan.checked_bounds.clear();
  plan.checked_units.clear();
  for (const std::string& name : plan.checked_var_names) {
    const VariableInfo* declared = schema.variable(name);
    double bound = declared ? declared->plausible : std::numeric_limits<double>::infinity();
    for (const auto& [key, value] : cfg.plausible)
      if (key == name) bound = value;
    plan.checked_bounds.push_back(bound);
    plan.checked_units.push_back(declared ? declared->unit : std::string());
  }
}

// Model::make_plan with the bounds of the experiment's model kind (a Model may hold several kinds' schemas).
template <class Model, class Request>
typename Model::Plan make_bounded_plan(const ExperimentConfig& cfg, const Request& request) {
  typename Model::Plan plan = Model::make_plan(cfg, request);
  plan.warmup_steps = cfg.warmup_steps;
  if constexpr (std::is_same_v<Request, PlanRequest>)
    if (request.warmup_steps >= 0) plan.warmup_steps = request.warmup_steps;
  for (const ModelSchema& schema : Model::schemas())
    if (schema.kind == cfg.model) set_plausible_bounds(plan, schema, cfg);
  return plan;
}

}  // namespace kbrain
