#pragma once
// Runs one IoRunPlan on one backend in one precision: upload (setup), the step loop (simulate) and everything that
// moves data to the host or to files (output), timed separately. Used by `kbrain run`, `kbrain compare` and tests.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "core/inputs/stimulus.hpp"
#include "core/recorders/trace_recorder.hpp"
#include "core/timing/progress.hpp"
#include "core/timing/stopwatch.hpp"
#include "experiments/io_network_setup.hpp"
#include "experiments/io_run_plan.hpp"
#include "models/olive/cell/io_sampler.hpp"
#include "models/olive/drivers/io_simulation.hpp"

namespace kbrain {

template <class Real>
constexpr const char* precision_name() {
  return std::is_same<Real, float>::value ? "float" : "double";
}

template <class Backend, class Real>
IoRunResult run_io(const IoRunPlan& plan) {
  using Exec = typename Backend::execution_space;
  const auto& cfg = *plan.config;
  const std::int64_t steps = plan.steps;
  IoRunResult res;
  res.backend = Backend::name;
  res.precision = precision_name<Real>();
  res.steps = steps;

  // ---------------- generate (uniform/gaussian3d) + setup ----------------
  check_io_memory<Backend, Real>(plan);  // before anything is allocated
  Stopwatch setup;
  auto stimulus = make_stimulus(cfg.stimulus, plan.network->cells, steps);
  auto sim = make_io_simulation<Backend, Real>(plan, res);
  if (plan.count_spikes || plan.write_spikes) sim.enable_spikes(cfg.record.spike_threshold);

  std::optional<TraceRecorder> trace;
  std::optional<SpikeRecorder> spike_file;
  std::optional<olive::IoSampler<Exec, Real>> trace_sampler, probe_sampler;
  const std::int64_t every = std::max<std::int64_t>(1, cfg.record.every);
  if (!plan.out_dir.empty() && plan.write_trace && !plan.trace_vars.empty() && !plan.trace_cells.empty()) {
    trace.emplace(plan.out_dir, io_trace_spec(plan, cfg, every, std::is_same<Real, float>::value));
    const auto width = static_cast<std::int64_t>(plan.trace_vars.size() * plan.trace_cells.size());
    trace_sampler.emplace(plan.trace_vars, plan.trace_cells,
                          static_cast<int>(std::clamp<std::int64_t>((8 << 20) / width, 1, 4096)));
  }
  if (!plan.out_dir.empty() && plan.write_spikes)
    spike_file.emplace(open_spike_files(plan.out_dir, cfg.record.csv, cfg.record.binary));
  if (!plan.probe_cells.empty()) {
    probe_sampler.emplace(std::vector<int>{olive::V_AXON}, plan.probe_cells, 1024);
    res.probe_v_axon.reserve(static_cast<std::size_t>(steps * plan.probe_cells.size()));
  }
  sim.fence();
  res.setup_s = setup.seconds() - res.generate_s;
  res.gap_kernel = sim.strategy_name();
  res.device_bytes = sim.device_bytes();

  // ---------------- simulate (+ output at drain points) ----------------
  ProgressBar bar(std::string(Backend::name) + "/" + precision_name<Real>(), steps);
  if (!plan.progress) bar.finish();
  double output_s = 0;
  auto drain_all = [&](bool final_drain) {
    sim.fence();  // queued steps belong to "simulate"
    Stopwatch out;
    if (trace_sampler && (final_drain || trace_sampler->full()))
      trace_sampler->drain([&](std::int64_t step, const double* v) { trace->record(step, v); });
    if (probe_sampler && (final_drain || probe_sampler->full()))
      probe_sampler->drain([&](std::int64_t, const double* v) {
        res.probe_v_axon.insert(res.probe_v_axon.end(), v, v + probe_sampler->width());
      });
    if (sim.spike_drain_interval() > 0 && (final_drain || sim.spikes_due())) {
      auto events = sim.drain_spikes();
      res.spikes += static_cast<std::int64_t>(events.size());
      for (auto& e : events) res.spike_steps.push_back(e.first);
      if (spike_file) spike_file->record(events);
    }
    output_s += out.seconds();
  };

  Stopwatch loop;
  for (std::int64_t n = 0; n < steps; ++n) {
    const double i_app = stimulus->uniform_current(n);
    const std::vector<double>* per_cell = stimulus->has_per_cell() ? stimulus->per_cell_current(n) : nullptr;
    sim.step(i_app, per_cell);
    const std::int64_t done = n + 1;
    if (trace_sampler && done % every == 0) trace_sampler->capture(sim.state(), done);
    if (probe_sampler && done % plan.probe_every == 0) probe_sampler->capture(sim.state(), done);
    if ((trace_sampler && trace_sampler->full()) || (probe_sampler && probe_sampler->full()) || sim.spikes_due())
      drain_all(false);
    if ((done & 63) == 0) bar.update(done);
  }
  drain_all(true);
  const double total = loop.seconds();
  bar.finish();

  Stopwatch close;
  if (trace) trace->close();
  if (spike_file) spike_file->close();
  res.simulate_s = total - std::min(total, output_s);  // output_s so far = drains inside the loop
  res.output_s = output_s + close.seconds();
  return res;
}

}  // namespace kbrain
