#pragma once
// The plan of a galbraith_lif run: validated parameters, the network grouped by target (built once on the host and
// shared by every backend and precision), the PSC filter, the stimulated neurons, the synapse-update variant and the
// memory the run will need (checked before anything is allocated).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config/experiment_config.hpp"
#include "models/galbraith_lif/galbraith_network.hpp"
#include "models/galbraith_lif/galbraith_parameters.hpp"
#include "models/runtime/run_plan.hpp"

namespace kbrain::galbraith {

enum class SynapseUpdate { Event, Agent };
const char* to_string(SynapseUpdate u);

struct GalbraithPlan : RunPlan {
  GalbraithParams params;
  Topology topology = Topology::Ring;
  std::shared_ptr<const HostNetwork> network;
  std::vector<double> filter;           // h[0 .. L-1], normalised
  std::int64_t refractory_steps = 8;    // round(tau_ref / dt)
  std::vector<std::int32_t> stimulated; // neurons given J_stim every step
  SynapseUpdate update = SynapseUpdate::Event;
  bool stage_timing = false;

  std::int64_t neurons() const { return network->neurons; }
  std::int64_t synapses() const { return network->synapses(); }
  std::int64_t taps() const { return static_cast<std::int64_t>(filter.size()); }
};

// Floats per synapse buffer in the study's layout: L + (L mod 16) ("cuda memory access optimization", 003:L2706;
// not a multiple of 16 in general, kept as published so the agent mapping moves the study's bytes).
inline std::int64_t study_buffer_stride(std::int64_t taps) { return taps + taps % 16; }

// Device bytes of the study's layout (Table 4.2, 003:L944-956): 50 N + 24 S + 4 L (N + S), plus 4 N spike counters.
std::int64_t study_layout_bytes(std::int64_t neurons, std::int64_t synapses, std::int64_t taps);
// Device bytes kbrain allocates for a run in `real_bytes` precision (galbraith_state.hpp's arrays).
std::int64_t kbrain_layout_bytes(std::int64_t neurons, std::int64_t synapses, std::int64_t taps, SynapseUpdate update,
                                 std::int64_t real_bytes);

GalbraithPlan make_galbraith_plan(const ExperimentConfig& cfg, const PlanRequest& request);
// The plan keeps a pointer to its experiment: a temporary one would dangle.
GalbraithPlan make_galbraith_plan(const ExperimentConfig&& cfg, const PlanRequest& request) = delete;

}  // namespace kbrain::galbraith
