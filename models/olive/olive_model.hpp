#pragma once
// The inferior-olive model as a unit (models/registry.hpp lists it): kind "io", its schema and parameter table
// (olive_schema.cpp), its plan (olive_plan.cpp), its simulation on a backend (olive_run.hpp) and its agreement
// columns in `kbrain compare`: max |ΔV_axon| on spread probe cells and spike counts, against the reference run.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/report/comparison_table.hpp"
#include "models/olive/olive_plan.hpp"
#include "models/olive/olive_run.hpp"
#include "models/olive/olive_schema.hpp"

namespace kbrain::olive {

struct OliveModel {
  using Plan = OlivePlan;
  template <class Backend, class Real>
  using Simulation = OliveRun<Backend, Real>;
  static constexpr const char* kCells = "cells";
  static constexpr const char* kConnections = "junctions";
  static constexpr bool kSpikeStatistics = false;  // population statistics need every spike
  static constexpr bool kStatesBytesMoved = true;  // io_step_bytes.hpp: compare shows achieved GB/s
  static bool states_flops(const Plan&) { return true; }  // io_step_ops.hpp: GFLOP/s and flop/B
  static constexpr const char* kStrategy = "gap_kernel";
  // V_axon probes every 10 steps: one small gather kernel per sample keeps an observed loop within a few per cent
  // of an unobserved one even at small sizes on a GPU. Spikes are detected at every step.
  static constexpr std::int64_t kProbeEvery = 10;

  static std::vector<ModelSchema> schemas() { return {olive_schema()}; }
  static Plan make_plan(const ExperimentConfig& cfg, const PlanRequest& r) { return make_olive_plan(cfg, r); }
  static std::vector<std::int64_t> probe_cells(const Plan& p) {
    return spread_cells(p.cells, p.config->compare.probe_cells);
  }
  static std::vector<std::pair<std::string, std::string>> describe(const Plan&) { return {}; }
  // The largest network of this plan's kind that the memory planner (drivers/io_memory_plan.hpp) fits into the
  // backend's free memory in `precision`, in cells; a mesh: the largest square. Nothing is allocated (olive_runs.cpp).
  static std::int64_t largest_cells(const Plan& plan, const std::string& backend, Precision precision);

  static std::vector<ReportColumn> agreement_columns(const Plan&) {
    // The run's own spike count, then both counts over the steps both runs made: a budgeted reference (fewer
    // steps) would otherwise make a long run's spikes look like none.
    return {{"max_abs_dv_axon", "max abs ΔV_axon (mV)", "sig3"},
            {"spikes_run", "spikes", "int"},
            {"spikes", "spikes, common steps", "int"},
            {"reference_spikes", "reference spikes, common steps", "int"}};
  }
  static std::vector<ReportValue> agreement(const Plan&, const RunRequest& req, const RunResult& r,
                                            const RunResult& ref, bool) {
    const std::int64_t common = std::min(r.steps, ref.steps);
    const std::size_t n = static_cast<std::size_t>(common / std::max<std::int64_t>(1, req.probe_every)) *
                          req.probe_cells.size();
    double max_dv = 0;
    for (std::size_t k = 0; k < n && k < r.probes.size() && k < ref.probes.size(); ++k)
      max_dv = std::max(max_dv, std::fabs(r.probes[k] - ref.probes[k]));
    auto count_upto = [common](const RunResult& x) {
      return double(std::count_if(x.events.begin(), x.events.end(), [&](const auto& e) { return e.first <= common; }));
    };
    return {ReportValue::num(max_dv), ReportValue::num(double(r.events.size())), ReportValue::num(count_upto(r)),
            ReportValue::num(count_upto(ref))};
  }
};

}  // namespace kbrain::olive
