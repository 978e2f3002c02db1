#pragma once
// A spiking network as the runner sees it (models/runtime/model_runner.hpp), for any simulation with the point
// network's interface (point::PointNetworkSimulation; cortex::CortexHhSimulation, whose step() advances substeps()
// steps of dt): the device spike log drained at drain points (and every 4096 steps while spikes.csv streams),
// synaptic events counted from the drained spikes' out-degrees, population rates and ISI CVs at the end; with
// [record] synapses, the network's synapses as NumPy arrays (spiking/synapse_export.hpp), written at the end as output.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "models/point/point_plan.hpp"
#include "models/point/point_sampler.hpp"
#include "models/runtime/memory_statement.hpp"
#include "models/runtime/run_request.hpp"
#include "models/runtime/run_result.hpp"
#include "core/timing/stopwatch.hpp"
#include "spiking/host_network.hpp"
#include "spiking/spike_log.hpp"
#include "spiking/synapse_export.hpp"
#include "spiking/network_memory.hpp"
#include "spiking/projection_generation.hpp"
#include "spiking/spike_statistics.hpp"

namespace kbrain::point {

// Steps between two drains of the device spike log while spikes.csv streams (the drain counts as output time).
inline constexpr std::int64_t kSpikeStreamSteps = 4096;

// Simulations that can replay a recorded step (a CUDA graph) say whether they did: run.json's steps_replayed.
template <class Sim, class = void>
inline constexpr bool kReportsReplay = false;
template <class Sim>
inline constexpr bool kReportsReplay<Sim, std::void_t<decltype(std::declval<const Sim&>().replays_steps())>> = true;

// Whether a simulation counts the bytes its steps move (bytes_moved(synaptic_events)).
template <class Sim, class = void>
inline constexpr bool kCountsBytes = false;
template <class Sim>
inline constexpr bool kCountsBytes<Sim, std::void_t<decltype(std::declval<const Sim&>().bytes_moved(0.0))>> = true;

// Whether a simulation counts its floating-point operations (flops(); 0 where its neuron model states none).
template <class Sim, class = void>
inline constexpr bool kCountsFlops = false;
template <class Sim>
inline constexpr bool kCountsFlops<Sim, std::void_t<decltype(std::declval<const Sim&>().flops())>> = true;

template <class Sim, class Backend, class Real>
class SpikingRun {
 public:
  using Exec = typename Backend::execution_space;
  using Sampler = PointSampler<Exec, Real>;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;

  SpikingRun(const SpikingPlan& plan, const RunRequest& request, RunResult& res)
      : plan_(plan), sim_(*plan.setup), out_dir_(request.out_dir) {  // the runner has asked memory() first: it
                                                                      // refuses what does not fit
    sim_.enable_spike_log();
    res.connections = double(sim_.synapse_count());
    const spiking::GenerationTimes& g = sim_.generation();
    res.generate_s = g.total();
    res.details.emplace_back("generate_draw_s", g.draw_s);
    res.details.emplace_back("generate_fill_s", g.fill_s);
    res.details.emplace_back("generate_sort_s", g.sort_s);
    res.details.emplace_back("generate_values_s", g.values_s);
  }

  std::int64_t steps_per_call() const { return sim_.substeps(); }
  void step() { sim_.step(); }
  void fence() { sim_.fence(); }
  std::int64_t steps_done() const { return sim_.steps_done(); }
  const auto& state() { return sim_.state(); }
  std::int64_t device_bytes() const { return sim_.device_bytes(); }
  // spikes.csv is streamed every kSpikeStreamSteps steps (the device log itself never overflows)
  bool spikes_due(std::int64_t before, std::int64_t after, bool streaming) const {
    return streaming && (after / kSpikeStreamSteps) != (before / kSpikeStreamSteps);
  }
  SpikeEvents drain_spikes(bool) {
    SpikeEvents events = sim_.drain_spikes();
    const std::size_t warm = warmup_events_.size();  // drained at the warm-up's end: written now, not counted
    if (warm > 0) {
      events.insert(events.begin(), warmup_events_.begin(), warmup_events_.end());
      warmup_events_.clear();
    }
    const auto& offsets = sim_.offsets();
    for (std::size_t k = warm; k < events.size(); ++k)
      synaptic_events_ += double(offsets[events[k].second + 1] - offsets[events[k].second]);
    neuron_spikes_ += static_cast<std::int64_t>(events.size());
    return events;
  }
  // The warm-up is over: the synaptic events of the timed phase count from here (the spikes drained so far and
  // those still in the log are the warm-up's).
  void start_timing() {
    const SpikeEvents events = sim_.drain_spikes();
    warmup_events_.insert(warmup_events_.end(), events.begin(), events.end());
    synaptic_events_ = 0;
    spikes_before_timing_ = sim_.total_spikes();
    neuron_spikes_before_timing_ = neuron_spikes_ + static_cast<std::int64_t>(events.size());
  }
  // Spikes of the Poisson sources are counted on the device only: their mean out-degree stands for each.
  void finish(RunResult& res) {
    const std::int64_t neurons = plan_.setup->network.neurons, sources = plan_.setup->network.poisson_sources;
    const auto& offsets = sim_.offsets();
    const double source_degree =
        sources > 0 ? double(offsets.back() - offsets[static_cast<std::size_t>(neurons)]) / double(sources) : 0.0;
    synaptic_events_ += double((sim_.total_spikes() - spikes_before_timing_) -
                               (neuron_spikes_ - neuron_spikes_before_timing_)) * source_degree;
    res.figures.emplace_back("synaptic_events", synaptic_events_);
    if (std::isfinite(res.energy_j) && synaptic_events_ > 0)  // the timed phase's energy per synaptic event
      res.details.emplace_back("uj_per_synaptic_event", res.energy_j / synaptic_events_ * 1e6);
    if constexpr (kCountsBytes<Sim>) res.bytes_moved = sim_.bytes_moved(synaptic_events_);
    if constexpr (kCountsFlops<Sim>) res.flops = sim_.flops();
    const double dt = plan_.setup->params.dt;
    res.populations = spiking::population_stats(plan_.setup->populations, res.events,
                                                double(res.steps + res.warmup_steps) * dt, dt);
    if constexpr (kReportsReplay<Sim>) res.details.emplace_back("steps_replayed", sim_.replays_steps() ? 1.0 : 0.0);
    if (plan_.record_synapses && !out_dir_.empty()) export_synapses(res);
  }

  Sim& simulation() { return sim_; }

  // The network's bytes on the backend (spiking/network_memory.hpp), refused when they do not fit (exit 2); on the
  // host the run keeps a copy of the synapse offsets (the drained spikes' out-degrees).
  static MemoryStatement memory(const SpikingPlan& plan, const RunRequest&) {
    require_memory(plan);
    MemoryStatement m;
    const PointSetup& setup = *plan.setup;
    if (!setup.given_network) m.device_bytes = spiking::spiking_device_bytes(memory_shape(setup));
    m.host_bytes = 8.0 * double(setup.network.presynaptic() + 1);
    return m;
  }

  static spiking::SpikingMemoryShape memory_shape(const PointSetup& setup) {
    spiking::SpikingMemoryShape m;
    m.spec = setup.network;
    m.max_delay = setup.projections ? setup.projections->max_delay_steps() : setup.delays.bound();
    if (setup.projections) m.projection_synapses = setup.projections->synapse_bound();
    m.drive_neurons = double(setup.poisson_lambda.size());
    m.dense = setup.dense_synapses;
    m.real_bytes = static_cast<int>(sizeof(Real));
    m.log_capacity = spiking::default_spike_log_capacity(setup.network.neurons, Backend::is_gpu);  // as the run's
    return m;
  }

  // Refuses, before anything is allocated, a network that does not fit the backend's free memory (exit 2).
  static void require_memory(const SpikingPlan& plan) {
    const PointSetup& setup = *plan.setup;
    if (setup.given_network) return;  // a hand-made network (tests) is already in memory
    const spiking::SpikingMemoryShape m = memory_shape(setup);
    const auto hw = Backend::describe();
    try {
      spiking::require_spiking_memory(m, double(hw.free_memory_bytes),
                                      std::string(Backend::name) + " (" + hw.device + ")");
    } catch (const std::invalid_argument& e) {
      throw NotEnoughMemory(plan.config->source.string() + ": [network]: " + e.what());
    }
  }

 private:
  // The run's network, generated again on the host (the same synapses, spiking/generated_synapses.hpp), as arrays in
  // the output folder; its time counts as output.
  void export_synapses(RunResult& res) {
    Stopwatch sw;
    const PointSetup& setup = *plan_.setup;
    std::int64_t written = 0;
    if (setup.given_network)
      written = spiking::write_synapse_arrays(out_dir_, *setup.given_network);
    else if (setup.projections)
      written = spiking::write_synapse_arrays(
          out_dir_, spiking::generate_projection_synapses<Kokkos::DefaultHostExecutionSpace>(*setup.projections,
                                                                                             setup.drive_weight_bound())
                        .csr);
    else
      written = spiking::write_synapse_arrays(out_dir_, spiking::build_network(setup.network, setup.delays));
    if (written != sim_.synapse_count())
      throw std::logic_error("the exported synapses differ in number from the simulated ones");
    write_npy(out_dir_ / "neurons_v0.npy", setup.initial[V]);
    write_npy(out_dir_ / "neurons_i_ext.npy", setup.i_ext);
    if (!setup.poisson_lambda.empty()) {
      write_npy(out_dir_ / "neurons_poisson_lambda.npy", setup.poisson_lambda);
      write_npy(out_dir_ / "neurons_poisson_weight.npy", setup.poisson_weight);
    }
    const double s = sw.seconds();
    res.output_s += s;
    res.details.emplace_back("synapses_export_s", s);
  }

  const SpikingPlan& plan_;
  Sim sim_;
  std::filesystem::path out_dir_;
  double synaptic_events_ = 0;
  std::int64_t neuron_spikes_ = 0;
  std::int64_t spikes_before_timing_ = 0, neuron_spikes_before_timing_ = 0;
  SpikeEvents warmup_events_;  // drained by start_timing, handed on by the next drain
};

}  // namespace kbrain::point
