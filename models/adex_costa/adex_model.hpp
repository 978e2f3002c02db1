#pragma once
// The dense plastic AdEx network (Neofytou 2019: AdEx + Costa 2015 STP/STDP) as a unit (models/registry.hpp lists
// it): kind "adex_costa", its schema and tables (adex_schema.cpp), its plan (adex_plan.cpp), its simulation
// (adex_simulation.hpp) and its compare columns: synapse throughput, events per step, and agreement of A on spread
// probe synapses and of the neurons' spike counts with the reference run.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/report/comparison_table.hpp"
#include "models/adex_costa/adex_plan.hpp"
#include "models/adex_costa/adex_schema.hpp"
#include "models/adex_costa/adex_simulation.hpp"

namespace kbrain::adex {

struct AdexCostaModel {
  using Plan = AdexPlan;
  template <class Backend, class Real>
  using Simulation = AdexSimulation<Backend, Real>;
  static constexpr const char* kCells = "neurons";
  static constexpr const char* kConnections = "synapses";
  static constexpr const char* kStrategy = "synapse_pass";
  static constexpr bool kSpikeStatistics = false;  // spike counts come from the device totals
  static constexpr bool kStatesBytesMoved = true;   // AdexSimulation::finish: compare shows GB/s
  static constexpr std::int64_t kProbeEvery = 10;

  static std::vector<ModelSchema> schemas() { return {adex_schema()}; }
  static Plan make_plan(const ExperimentConfig& cfg, const PlanRequest& r) { return make_adex_plan(cfg, r); }

  // Connected synapses spread over the matrix (ids below 2^31, the samplers' index range).
  static std::vector<std::int64_t> probe_cells(const Plan& p) {
    std::vector<std::int64_t> ids;
    const std::int64_t slots = std::min<std::int64_t>(p.synapse_slots(), std::numeric_limits<std::int32_t>::max());
    const std::int64_t wanted = std::max<std::int64_t>(1, p.config->compare.probe_cells);
    for (std::int64_t k = 0; k < wanted; ++k)
      for (std::int64_t id = k * slots / wanted; id < slots && id < (k + 1) * slots / wanted; ++id)
        if (p.connected(id / p.n_post, id % p.n_post)) {
          ids.push_back(id);
          break;
        }
    return ids;
  }

  static std::vector<std::pair<std::string, std::string>> describe(const Plan& p) {
    return {{"architecture", p.mxm ? "mxm" : "nxm"},
            {"connectivity", to_string(p.connectivity)},
            {"parity", p.connectivity == Connectivity::Half ? to_string(p.parity) : "-"},
            {"post_events", to_string(p.post_events)},
            {"pattern", to_string(p.pattern)},
            {"winner_rule", "largest presynaptic index among connected spiking rows"},
            {"mean_rule", "m̄ over connected synapses whose target fired; fixed-order double sums"},
            {"initial_UA_profile", "row index modulo 100"},
            {"diagonal", p.mxm ? "connected (mxm self synapses)" : "-"},
            {"synapse_bytes", "R, u, U, A in the run precision + a connection byte per slot"}};
  }

  static std::vector<ReportColumn> agreement_columns(const Plan&) {
    return {{"synapse_steps_per_s", "synapse-steps/s", "sig3"},
            {"pre_events_per_step", "pre events/step", "sig3"},
            {"post_events_per_step", "post events/step", "sig3"},
            {"max_rel_dA", "max rel ΔA", "sig3"},
            {"neuron_spikes", "neuron spikes", "int"},
            {"reference_neuron_spikes", "reference neuron spikes", "int"}};
  }
  static std::vector<ReportValue> agreement(const Plan& p, const RunRequest& req, const RunResult& r,
                                            const RunResult& ref, bool) {
    const std::int64_t common = std::min(r.steps, ref.steps);
    const std::size_t n = static_cast<std::size_t>(common / std::max<std::int64_t>(1, req.probe_every)) *
                          req.probe_cells.size();
    double max_rel = 0;
    for (std::size_t k = 0; k < n && k < r.probes.size() && k < ref.probes.size(); ++k) {
      const double scale = std::max({std::fabs(r.probes[k]), std::fabs(ref.probes[k]), 1e-30});
      max_rel = std::max(max_rel, std::fabs(r.probes[k] - ref.probes[k]) / scale);
    }
    const double throughput = r.simulate_s > 0 ? p.connections * double(r.steps) / r.simulate_s : 0;
    const bool same_steps = r.steps == ref.steps;
    const double steps = double(std::max<std::int64_t>(1, r.steps));
    return {ReportValue::num(throughput), ReportValue::num(r.figure("pre_events") / steps),
            ReportValue::num(r.figure("post_events") / steps), ReportValue::num(max_rel),
            ReportValue::num(r.figure("neuron_spikes")),
            same_steps ? ReportValue::num(ref.figure("neuron_spikes")) : ReportValue::missing()};
  }
};

}  // namespace kbrain::adex
