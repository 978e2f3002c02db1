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
#include "models/runtime/memory_statement.hpp"
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

// Host bytes of a network of `topology` at its peak, from its size alone: while the plan builds it (the generator's
// temporaries) and while it is held (8 bytes of offsets a neuron, a 4-byte source and a 4-byte weight a synapse), with,
// where `state_real_bytes` > 0 (a run whose state is host memory too: a CPU backend), the run's arrays in that
// precision beside the held network (kbrain_layout_bytes).
double network_host_peak_bytes(Topology topology, std::int64_t neurons, double synapses, std::int64_t taps,
                               SynapseUpdate update, std::int64_t state_real_bytes);

// "at most N neurons fit (network.neurons)" and the like: the largest network of `topology` (its own size setting, the
// others kept) whose bytes(neurons, synapses), increasing in both, fit `available`.
template <class Bytes>
std::string largest_network_text(Topology topology, std::int64_t neurons, double synapses, double available,
                                 Bytes bytes);

GalbraithPlan make_galbraith_plan(const ExperimentConfig& cfg, const PlanRequest& request);
// The plan keeps a pointer to its experiment: a temporary one would dangle.
GalbraithPlan make_galbraith_plan(const ExperimentConfig&& cfg, const PlanRequest& request) = delete;

template <class Bytes>
std::string largest_network_text(Topology topology, std::int64_t neurons, double synapses, double available,
                                 Bytes bytes) {
  const auto text = [](std::int64_t k) { return std::to_string(k); };
  switch (topology) {
    case Topology::Ring:
      return "at most " +
             text(largest_fitting(neurons, available, [&](std::int64_t k) { return bytes(k, double(k)); })) +
             " neurons fit (network.neurons)";
    case Topology::Full:
      return "at most " +
             text(largest_fitting(neurons, available,
                                  [&](std::int64_t k) { return bytes(k, double(k) * double(k)); })) +
             " neurons fully connected fit (network.neurons)";
    case Topology::Random: {
      const auto s = static_cast<std::int64_t>(synapses);
      const std::int64_t fit =
          largest_fitting(s, available, [&](std::int64_t k) { return bytes(neurons, double(k)); });
      const std::string most = "at most " + text(fit) + " synapses among " + text(neurons) +
                               " neurons fit (network.synapses)";
      if (fit > 0) return most;
      // not even the neurons fit: the most neurons that fit with the same synapses, where they can hold them
      const std::int64_t n = largest_fitting(neurons, available, [&](std::int64_t k) { return bytes(k, synapses); });
      return most + (double(n) * double(n) >= synapses
                         ? "; " + text(s) + " synapses fit among at most " + text(n) + " neurons (network.neurons)"
                         : "; no smaller network of " + text(s) + " synapses fits");
    }
    case Topology::File:
      return "at most " +
             text(largest_fitting(static_cast<std::int64_t>(synapses), available,
                                  [&](std::int64_t k) { return bytes(neurons, double(k)); })) +
             " of the file's synapse records fit";
  }
  return "";
}

}  // namespace kbrain::galbraith
