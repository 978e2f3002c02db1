#pragma once
// The Wang 2012 cortical HH network as a unit (models/registry.hpp lists it): kind cortex_hh, its own parameter
// table (models/point/point_schema.cpp: cortex_hh_schema), the spiking plan with its numerical methods checked
// (EAI, gating tables, TPM), and its simulation (cortex_network.hpp), one network step of substeps() per call.
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/cortex_hh/cortex_network.hpp"
#include "models/point/point_schema.hpp"
#include "models/point/spiking_model.hpp"
#include "models/point/spiking_run.hpp"

namespace kbrain::cortex {

struct CortexHhModel : point::SpikingModelBase {
  template <class Backend, class Real>
  using Simulation = point::SpikingRun<CortexHhSimulation<Backend, Real>, Backend, Real>;
  static constexpr const char* kStrategy = "methods";
  static constexpr bool kStatesBytesMoved = true;  // CortexHhSimulation::bytes_moved: compare shows GB/s

  static std::vector<ModelSchema> schemas() { return {point::cortex_hh_schema()}; }
  static std::vector<std::pair<std::string, std::string>> describe(const Plan& plan) {
    const auto& p = plan.setup->params;
    return {{"parameter_set", plan.config->spiking.parameter_set},
            {"integrator", point::to_string(p.integrator)},
            {"methods", fmt::format("{}{}{}{}", point::to_string(p.integrator), p.substeps() > 1 ? "+eai" : "",
                                    p.lut ? "+lut" : "", p.tpm ? "+tpm" : "")}};
  }
};

}  // namespace kbrain::cortex
