#pragma once
// What every model's plan holds besides its own data: the plan is everything one run needs, prepared on the host
// once (from the validated experiment) and shared by every backend and precision that runs it. A model's Plan
// derives from RunPlan (models/<model>/<model>_plan.hpp); the runner, run.json and compare read only this part.
#include <cstdint>
#include <string>
#include <vector>

#include "core/config/experiment_config.hpp"

namespace kbrain {

// How a plan is asked for: the experiment's own network, or a resized one (compare --sizes / --densities).
struct PlanRequest {
  std::int64_t size = 0;     // > 0: network size (mesh side or cells/neurons)
  double density = 0;        // > 0: connections per cell (generated networks)
  std::int64_t steps = 0;    // > 0: steps instead of the file's
  std::string variant;       // non-empty: the value of the model's variant_setting (compare.variants)
  bool state_on_host = false; // the run's state will be in host memory (kbrain run on a CPU backend): a plan counts
                               // it in the host check it makes before building anything
  std::int64_t warmup_steps = -1;  // >= 0: warm-up steps instead of the file's
};

struct RunPlan {
  const ExperimentConfig* config = nullptr;
  std::int64_t cells = 0;          // cells or neurons
  double connections = 0;          // gap junctions or synapses (generated networks: expected count)
  std::string size_label;          // compare rows: "256x256", "uniform d=100", "4000"
  double work_per_step = 0;        // cost of one step in mesh-equivalent cell-steps (compare's serial budget)
  std::int64_t steps = 0;          // timed steps
  std::int64_t warmup_steps = 0;   // steps before them, simulated and recorded but not timed
  double dt_ms = 0;                // one step
  double network_build_s = 0;      // host time to build the plan's network
  double host_bytes = 0;           // host memory the plan's own arrays hold (checked before they were built)

  // [record]
  std::vector<int> trace_vars;               // indices into the model's variable table
  std::vector<std::string> trace_var_names;
  std::vector<std::int64_t> trace_cells;
  std::int64_t trace_every = 1;
  bool record_csv = true, record_binary = false;
  bool record_sonata = false;      // spikes also as spikes.h5, membrane potentials as voltage.h5 (SONATA)
  bool record_spikes = true;
  bool record_synapses = false;   // the network's synapses as NumPy arrays (models with a synapse list)
  int probe_var = 0;               // the variable compare samples for its agreement columns
  // The model's membrane potentials in mV, as trace_vars index them, one per compartment in compartment order: those
  // recorded go to the SONATA voltage report, element id = the position here. Empty: the model reports none (its
  // potential has no unit, or it has none).
  std::vector<int> voltage_vars;

  // The state variables the runner checks for values that are not finite (NaN, ±inf) or beyond their plausible
  // bound, as trace_vars index them, over cells [0, cells): a blown-up run stops and is never marked complete.
  // Empty: nothing is checked. checked_bounds (the largest magnitude, +inf: none) and checked_units follow
  // checked_vars; empty: no bounds (set_plausible_bounds, models/runtime/plausible_bounds.hpp, fills them).
  std::vector<int> checked_vars;
  std::vector<std::string> checked_var_names;
  std::vector<double> checked_bounds;
  std::vector<std::string> checked_units;
};

}  // namespace kbrain
