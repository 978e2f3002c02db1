#pragma once
// Galbraith 2010's agent-style LIF network as a unit (models/registry.hpp lists it): kind "galbraith_lif", its schema
// (galbraith_schema.cpp), plan (galbraith_plan.cpp), simulation (galbraith_simulation.hpp) and compare columns:
// spike totals, whether every neuron's count equals the reference run's, the closed-form total of the study's ring
// and full regressions, V on probe neurons, and the fenced stage times when simulation.stage_timing is on.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/report/comparison_table.hpp"
#include "models/galbraith_lif/galbraith_closed_form.hpp"
#include "models/galbraith_lif/galbraith_plan.hpp"
#include "models/galbraith_lif/galbraith_schema.hpp"
#include "models/galbraith_lif/galbraith_simulation.hpp"

namespace kbrain::galbraith {

struct GalbraithLifModel {
  using Plan = GalbraithPlan;
  template <class Backend, class Real>
  using Simulation = GalbraithSimulation<Backend, Real>;
  static constexpr const char* kCells = "neurons";
  static constexpr const char* kConnections = "synapses";
  static constexpr const char* kStrategy = "synapse_update";
  static constexpr bool kSpikeStatistics = false;  // counts come from the device
  static constexpr bool kStatesBytesMoved = true;   // galbraith_step_bytes.hpp: compare shows GB/s
  static constexpr std::int64_t kProbeEvery = 1;

  static std::vector<ModelSchema> schemas() { return {galbraith_schema()}; }
  static Plan make_plan(const ExperimentConfig& cfg, const PlanRequest& r) { return make_galbraith_plan(cfg, r); }

  static std::vector<std::int64_t> probe_cells(const Plan& p) {
    std::vector<std::int64_t> ids;
    const std::int64_t wanted = std::min<std::int64_t>(p.neurons(), std::max<std::int64_t>(1, p.config->compare.probe_cells));
    for (std::int64_t k = 0; k < wanted; ++k) ids.push_back(k * p.neurons() / wanted);
    return ids;
  }

  static std::vector<std::pair<std::string, std::string>> describe(const Plan& p) {
    return {{"topology", to_string(p.topology)},
            {"synapse_update", to_string(p.update)},
            {"filter_taps", std::to_string(p.taps())},
            {"refractory_steps", std::to_string(p.refractory_steps)},
            {"refractory_rule", "strict: a neuron that spiked at step n is integrated again from step n + "
                                "round(tau_ref/dt) + 1; no neuron is integrated at step 0"},
            {"synapse_listing", "Listing 4.6 (every synapse drained every step), not Listing C.5"},
            {"first_step", "n = 0 (the study's GPU code): a spike at step n reaches its target's soma at n + 1"},
            {"buffer_stride", "agent: L + (L mod 16) floats per synapse, as published; event: L taps per neuron"},
            {"random_pairs", "exactly S distinct ordered pairs (self pairs allowed), counter RNG, grouped by target"},
            {"parameters", "not printed by the study: the spec's proposed set (V_th 1, R 1, tau_RC 20 ms, tau_psc 5 "
                           "ms, order 0, w 2000, J_stim 1000 on the stimulated neurons)"},
            {"study_layout_bytes", std::to_string(study_layout_bytes(p.neurons(), p.synapses(), p.taps()))}};
  }

  static std::vector<ReportColumn> agreement_columns(const Plan& p) {
    std::vector<ReportColumn> c = {{"synapse_update", "synapse update", "text"},
                                   {"neuron_spikes", "spikes", "int"},
                                   {"closed_form_spikes", "closed form", "int"},
                                   {"counts_match", "counts = reference", "text"},
                                   {"max_abs_dV", "max |ΔV|", "sig3"},
                                   {"us_per_step", "µs/step", "sig3"}};
    if (p.stage_timing) {
      for (const char* s : kAgentStages) c.push_back({std::string("stage_") + s + "_us", std::string(s) + " µs/step", "sig3"});
      c.push_back({"stage_step_us", "fused step µs/step", "sig3"});
    }
    return c;
  }
  static std::vector<ReportValue> agreement(const Plan& p, const RunRequest& req, const RunResult& r,
                                            const RunResult& ref, bool) {
    const std::int64_t common = std::min(r.steps, ref.steps);
    const std::size_t n = static_cast<std::size_t>(common / std::max<std::int64_t>(1, req.probe_every)) *
                          req.probe_cells.size();
    double max_abs = 0;
    for (std::size_t k = 0; k < n && k < r.probes.size() && k < ref.probes.size(); ++k)
      max_abs = std::max(max_abs, std::fabs(r.probes[k] - ref.probes[k]));
    const double steps = double(std::max<std::int64_t>(1, r.steps));
    const std::int64_t closed = closed_form_total(p, r.steps);
    std::vector<ReportValue> v = {
        ReportValue::str(to_string(p.update)), ReportValue::num(r.value("neuron_spikes")),
        closed >= 0 ? ReportValue::num(double(closed)) : ReportValue::missing(),
        r.steps == ref.steps ? ReportValue::str(r.value("count_digest") == ref.value("count_digest") ? "yes" : "NO")
                             : ReportValue::missing(),
        ReportValue::num(max_abs), ReportValue::num(r.simulate_s * 1e6 / steps)};
    if (p.stage_timing) {
      for (const char* s : kAgentStages) {
        const double t = r.value(std::string("stage_") + s + "_s", -1);
        v.push_back(t >= 0 ? ReportValue::num(t * 1e6 / steps) : ReportValue::missing());
      }
      const double t = r.value("stage_step_s", -1);
      v.push_back(t >= 0 ? ReportValue::num(t * 1e6 / steps) : ReportValue::missing());
    }
    return v;
  }
};

}  // namespace kbrain::galbraith
