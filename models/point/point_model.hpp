#pragma once
// The point-neuron models as a unit (models/registry.hpp lists it): kinds lif, izhikevich and hh, each with its own
// parameter table (point_schema.cpp), one plan builder (point_plan.cpp) and one network simulation
// (point_network.hpp) whose neuron kernel the parameters choose.
#include <string>
#include <utility>
#include <vector>

#include "models/point/point_network.hpp"
#include "models/point/point_schema.hpp"
#include "models/point/spiking_model.hpp"
#include "models/point/spiking_run.hpp"

namespace kbrain::point {

struct PointModel : SpikingModelBase {
  template <class Backend, class Real>
  using Simulation = SpikingRun<PointNetworkSimulation<Backend, Real>, Backend, Real>;
  static constexpr const char* kStrategy = "integrator";
  static constexpr bool kStatesBytesMoved = true;  // PointNetworkSimulation::bytes_moved: compare shows GB/s

  static std::vector<ModelSchema> schemas() {
    return {point_schema("lif"), point_schema("izhikevich"), point_schema("hh")};
  }
  // Izhikevich states its operations per neuron update (izhikevich_step.hpp): compare adds GFLOP/s and flop/B.
  static bool states_flops(const Plan& plan) { return plan.setup->params.model == NeuronModel::Izhikevich; }
  static std::vector<std::pair<std::string, std::string>> describe(const Plan& plan) {
    return {{"parameter_set", plan.config->spiking.parameter_set},
            {"integrator", to_string(plan.setup->params.integrator)}};
  }
};

}  // namespace kbrain::point
