#pragma once
// The Wang 2012 cortical HH network as a unit (models/registry.hpp lists it): kind cortex_hh, its own parameter
// table (models/point/point_schema.cpp: cortex_hh_schema), the spiking plan with its numerical methods checked
// (EAI, gating tables, TPM), and its simulation (cortex_network.hpp), one network step of substeps() per call.
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/cortex_hh/cortex_network.hpp"
#include "models/point/point_plan.hpp"
#include "models/point/point_schema.hpp"
#include "models/point/spiking_columns.hpp"
#include "models/point/spiking_run.hpp"

namespace kbrain::cortex {

struct CortexHhModel {
  using Plan = point::SpikingPlan;
  template <class Backend, class Real>
  using Simulation = point::SpikingRun<CortexHhSimulation<Backend, Real>, Backend, Real>;
  static constexpr const char* kCells = "neurons";
  static constexpr const char* kConnections = "synapses";
  static constexpr bool kSpikeStatistics = true;  // population statistics need every spike
  static constexpr const char* kStrategy = "methods";
  static constexpr std::int64_t kProbeEvery = 1;

  static std::vector<ModelSchema> schemas() { return {point::cortex_hh_schema()}; }
  static Plan make_plan(const ExperimentConfig& cfg, const PlanRequest& r) { return point::make_spiking_plan(cfg, r); }
  static std::vector<std::int64_t> probe_cells(const Plan&) { return {}; }
  static std::vector<std::pair<std::string, std::string>> describe(const Plan& plan) {
    const auto& p = plan.setup->params;
    return {{"parameter_set", plan.config->spiking.parameter_set},
            {"integrator", point::to_string(p.integrator)},
            {"methods", fmt::format("{}{}{}{}", point::to_string(p.integrator), p.substeps() > 1 ? "+eai" : "",
                                    p.lut ? "+lut" : "", p.tpm ? "+tpm" : "")}};
  }
  static std::vector<ReportColumn> agreement_columns(const Plan& plan) { return point::spiking_columns(plan); }
  static std::vector<ReportValue> agreement(const Plan& plan, const RunRequest&, const RunResult& r,
                                            const RunResult& ref, bool is_reference) {
    return point::spiking_values(plan, r, ref, is_reference);
  }
};

}  // namespace kbrain::cortex
