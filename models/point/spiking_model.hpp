#pragma once
// What the spiking models share as units (point::PointModel, cortex::CortexHhModel): the spiking plan, the names of
// their sizes, every spike kept for population statistics, no probes, and the spiking compare columns. Each model
// adds its simulation, its schemas, the run.json key of its strategy and its run.json fields.
#include <cstdint>
#include <vector>

#include "models/point/point_plan.hpp"
#include "models/point/spiking_columns.hpp"

namespace kbrain::point {

struct SpikingModelBase {
  using Plan = SpikingPlan;
  static constexpr const char* kCells = "neurons";
  static constexpr const char* kConnections = "synapses";
  static constexpr bool kSpikeStatistics = true;  // population statistics need every spike
  static constexpr std::int64_t kProbeEvery = 1;

  static Plan make_plan(const ExperimentConfig& cfg, const PlanRequest& r) { return make_spiking_plan(cfg, r); }
  static std::vector<std::int64_t> probe_cells(const Plan&) { return {}; }
  static std::vector<ReportColumn> agreement_columns(const Plan& plan) { return spiking_columns(plan); }
  static std::vector<ReportValue> agreement(const Plan& plan, const RunRequest&, const RunResult& r,
                                            const RunResult& ref, bool is_reference) {
    return spiking_values(plan, r, ref, is_reference);
  }
};

}  // namespace kbrain::point
