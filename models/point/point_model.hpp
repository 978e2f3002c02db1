#pragma once
// The point-neuron models as a unit (models/registry.hpp lists it): kinds lif, izhikevich and hh, each with its own
// parameter table (point_schema.cpp), one plan builder (point_plan.cpp) and one network simulation
// (point_network.hpp) whose neuron kernel the parameters choose.
#include <string>
#include <utility>
#include <vector>

#include "models/point/point_network.hpp"
#include "models/point/point_plan.hpp"
#include "models/point/point_schema.hpp"
#include "models/point/spiking_columns.hpp"
#include "models/point/spiking_run.hpp"

namespace kbrain::point {

struct PointModel {
  using Plan = SpikingPlan;
  template <class Backend, class Real>
  using Simulation = SpikingRun<PointNetworkSimulation<Backend, Real>, Backend, Real>;
  static constexpr const char* kCells = "neurons";
  static constexpr const char* kConnections = "synapses";
  static constexpr bool kSpikeStatistics = true;  // population statistics need every spike
  static constexpr const char* kStrategy = "integrator";
  static constexpr std::int64_t kProbeEvery = 1;

  static std::vector<ModelSchema> schemas() {
    return {point_schema("lif"), point_schema("izhikevich"), point_schema("hh")};
  }
  static Plan make_plan(const ExperimentConfig& cfg, const PlanRequest& r) { return make_spiking_plan(cfg, r); }
  static std::vector<std::int64_t> probe_cells(const Plan&) { return {}; }
  static std::vector<std::pair<std::string, std::string>> describe(const Plan& plan) {
    return {{"parameter_set", plan.config->spiking.parameter_set},
            {"integrator", to_string(plan.setup->params.integrator)}};
  }
  static std::vector<ReportColumn> agreement_columns(const Plan& plan) { return spiking_columns(plan); }
  static std::vector<ReportValue> agreement(const Plan& plan, const RunRequest&, const RunResult& r,
                                            const RunResult& ref, bool is_reference) {
    return spiking_values(plan, r, ref, is_reference);
  }
};

}  // namespace kbrain::point
