#pragma once
// Runs one SpikingRunPlan on one backend in one precision: upload (setup), the step loop (simulate) and everything
// that moves data to the host or to files (output), timed separately; then population statistics.
#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "core/recorders/trace_recorder.hpp"
#include "core/timing/progress.hpp"
#include "core/timing/stopwatch.hpp"
#include "experiments/spiking_run_plan.hpp"
#include "models/cortex_hh/cortex_network.hpp"
#include "models/point/point_network.hpp"
#include "models/point/point_sampler.hpp"

namespace kbrain {

// Sim: point::PointNetworkSimulation or cortex::CortexHhSimulation (whose step() advances substeps() steps of dt).
template <class Sim, class Backend, class Real>
SpikingRunResult run_spiking_with(const SpikingRunPlan& plan) {
  using Exec = typename Backend::execution_space;
  const point::PointSetup& setup = *plan.setup;
  const SpikingConfig& cfg = plan.config->spiking;
  const double dt = setup.params.dt;
  SpikingRunResult res;
  res.backend = Backend::name;
  res.precision = std::is_same<Real, float>::value ? "float" : "double";
  res.steps = plan.steps;

  Stopwatch setup_clock;
  Sim sim(setup);
  sim.enable_spike_log();
  std::optional<TraceRecorder> trace;
  std::optional<SpikeRecorder> spike_file;
  std::optional<point::PointSampler<Exec, Real>> sampler;
  const std::int64_t every = std::max<std::int64_t>(1, cfg.every);
  if (!plan.out_dir.empty() && !plan.trace_vars.empty() && !plan.trace_neurons.empty() && (cfg.csv || cfg.binary)) {
    TraceSpec spec;
    for (int v : plan.trace_vars) spec.variables.push_back(point::kPointVarNames[v]);
    spec.cells = plan.trace_neurons;
    spec.every = every;
    spec.dt_ms = dt;
    spec.csv = cfg.csv;
    spec.binary = cfg.binary;
    spec.single_precision = std::is_same<Real, float>::value;
    trace.emplace(plan.out_dir, spec);
    sampler.emplace(plan.trace_vars, plan.trace_neurons, 1024);
  }
  if (!plan.out_dir.empty() && plan.write_spikes) spike_file.emplace(open_spike_files(plan.out_dir, cfg.csv, cfg.binary));
  sim.fence();
  res.setup_s = setup_clock.seconds();
  res.device_bytes = sim.device_bytes();

  const auto& offsets = setup.network.offsets;
  const std::int64_t neurons = setup.network.neurons;
  const double source_degree = setup.network.sources > 0
                                   ? double(offsets.back() - offsets[neurons]) / double(setup.network.sources)
                                   : 0.0;
  double output_s = 0;
  auto drain = [&](bool final_drain) {
    sim.fence();
    Stopwatch out;
    if (sampler && (final_drain || sampler->full()))
      sampler->drain([&](std::int64_t step, const double* v) { trace->record(step, v); });
    {  // the device log moves itself to the host when full; drained here to stream spikes.csv
      auto events = sim.drain_spikes();
      for (const auto& e : events) res.synaptic_events += double(offsets[e.second + 1] - offsets[e.second]);
      res.spikes += static_cast<std::int64_t>(events.size());
      if (spike_file) spike_file->record(events);
      if (plan.keep_spikes) res.events.insert(res.events.end(), events.begin(), events.end());
    }
    output_s += out.seconds();
  };

  ProgressBar bar(std::string(Backend::name) + "/" + res.precision, plan.steps);
  if (!plan.progress) bar.finish();
  Stopwatch loop;
  const std::int64_t stride = sim.substeps();  // steps of dt per call (cortex_hh EAI: network step / dt)
  for (std::int64_t n = 0; n < plan.steps; n += stride) {
    sim.step();
    const std::int64_t done = n + stride;
    if (sampler && (stride == 1 ? done % every == 0 : (done / every) != (n / every)))
      sampler->capture(sim.state(), done);
    // spikes.csv is streamed every 4096 steps (the device log itself never overflows)
    if ((sampler && sampler->full()) || (spike_file && (done / 4096) != (n / 4096))) drain(false);
    if ((done / 64) != (n / 64)) bar.update(done);
  }
  res.steps = sim.steps_done();
  drain(true);
  const std::int64_t all_spikes = sim.total_spikes();
  const double total = loop.seconds();
  bar.finish();
  Stopwatch close;
  if (trace) trace->close();
  if (spike_file) spike_file->close();
  res.simulate_s = total - std::min(total, output_s);
  res.output_s = output_s + close.seconds();
  res.synaptic_events += double(all_spikes - res.spikes) * source_degree;
  res.populations = spiking::population_stats(setup.network.populations, res.events, double(res.steps) * dt, dt);
  return res;
}

template <class Backend, class Real>
SpikingRunResult run_spiking(const SpikingRunPlan& plan) {
  if (plan.setup->params.model == point::NeuronModel::CortexHh)
    return run_spiking_with<cortex::CortexHhSimulation<Backend, Real>, Backend, Real>(plan);
  return run_spiking_with<point::PointNetworkSimulation<Backend, Real>, Backend, Real>(plan);
}

}  // namespace kbrain
