#pragma once
// The plan of a spiking-network run (model.kind = lif | izhikevich | hh | cortex_hh): parameters, the synapse network,
// initial values and drive (point::PointSetup), prepared on the host once and shared by every backend/precision.
#include <memory>

#include "core/config/experiment_config.hpp"
#include "models/point/point_setup.hpp"
#include "models/runtime/run_plan.hpp"

namespace kbrain::point {

struct SpikingPlan : RunPlan {
  std::shared_ptr<const PointSetup> setup;
};

// `request.size` > 0 sets the neuron count (fixed-probability networks keep the expected in-degree).
SpikingPlan make_spiking_plan(const ExperimentConfig& cfg, const PlanRequest& request);
// The plan keeps a pointer to its experiment: a temporary one would dangle.
SpikingPlan make_spiking_plan(const ExperimentConfig&& cfg, const PlanRequest& request) = delete;

}  // namespace kbrain::point
