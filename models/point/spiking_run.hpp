#pragma once
// A spiking network as the runner sees it (models/runtime/model_runner.hpp), for any simulation with the point
// network's interface (point::PointNetworkSimulation; cortex::CortexHhSimulation, whose step() advances substeps()
// steps of dt): the device spike log drained at drain points (and every 4096 steps while spikes.csv streams),
// synaptic events counted from the drained spikes' out-degrees, population rates and ISI CVs at the end.
#include <cstdint>
#include <utility>
#include <vector>

#include "models/point/point_plan.hpp"
#include "models/point/point_sampler.hpp"
#include "models/runtime/run_request.hpp"
#include "models/runtime/run_result.hpp"
#include "spiking/spike_statistics.hpp"

namespace kbrain::point {

template <class Sim, class Backend, class Real>
class SpikingRun {
 public:
  using Exec = typename Backend::execution_space;
  using Sampler = PointSampler<Exec, Real>;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;

  SpikingRun(const SpikingPlan& plan, const RunRequest&, RunResult& res) : plan_(plan), sim_(*plan.setup) {
    sim_.enable_spike_log();
    res.connections = plan.connections;
  }

  std::int64_t steps_per_call() const { return sim_.substeps(); }
  void step() { sim_.step(); }
  void fence() { sim_.fence(); }
  std::int64_t steps_done() const { return sim_.steps_done(); }
  const auto& state() { return sim_.state(); }
  std::int64_t device_bytes() const { return sim_.device_bytes(); }
  // spikes.csv is streamed every 4096 steps (the device log itself never overflows)
  bool spikes_due(std::int64_t before, std::int64_t after, bool streaming) const {
    return streaming && (after / 4096) != (before / 4096);
  }
  SpikeEvents drain_spikes(bool) {
    SpikeEvents events = sim_.drain_spikes();
    const auto& offsets = plan_.setup->network.offsets;
    for (const auto& e : events) synaptic_events_ += double(offsets[e.second + 1] - offsets[e.second]);
    neuron_spikes_ += static_cast<std::int64_t>(events.size());
    return events;
  }
  // Spikes of the Poisson sources are counted on the device only: their mean out-degree stands for each.
  void finish(RunResult& res) {
    const auto& net = plan_.setup->network;
    const double source_degree =
        net.sources > 0 ? double(net.offsets.back() - net.offsets[net.neurons]) / double(net.sources) : 0.0;
    synaptic_events_ += double(sim_.total_spikes() - neuron_spikes_) * source_degree;
    res.figures.emplace_back("synaptic_events", synaptic_events_);
    const double dt = plan_.setup->params.dt;
    res.populations = spiking::population_stats(net.populations, res.events, double(res.steps) * dt, dt);
  }

  Sim& simulation() { return sim_; }

 private:
  const SpikingPlan& plan_;
  Sim sim_;
  double synaptic_events_ = 0;
  std::int64_t neuron_spikes_ = 0;
};

}  // namespace kbrain::point
