#pragma once
// The one runner: any model, on one backend, in one precision. Phases, timed separately:
//   setup    — the model's simulation is constructed (network generated on the backend or uploaded, state filled);
//   simulate — the step loop; a drain point (a full sampler, spikes due) fences, then moves data to the host;
//   output   — everything that moves data to the host or to files (drains and closing the recorders).
// A model plugs in through Model::Plan and Model::Simulation<Backend, Real>, which provides:
//   Simulation(const Plan&, const RunRequest&, RunResult&)  (may set generate_s, connections, strategy)
//   std::int64_t steps_per_call() const;   void step();   void fence();   std::int64_t steps_done() const;
//   using Sampler (a DeviceSampler over the model's state);   auto& state();   std::int64_t device_bytes() const;
//   bool spikes_due(std::int64_t before, std::int64_t after, bool streaming) const;
//   SpikeEvents drain_spikes(bool final_drain);   void finish(RunResult&)  (model figures once the loop is done)
// A simulation that is one rank's part of a partitioned run (under mpirun) declares kPartitioned (is_partitioned).
// The plan's checked_vars are checked for NaN/inf, and for magnitudes beyond their plausible bounds (checked_bounds),
// every request.finite_check_every steps and at the end (a blown-up run throws NonFiniteState and is never complete). A run that writes files moves its samples to them at least every
// kOutputFlushInterval, and one asked to stop by a signal (core/process/stop_signals.hpp) stops after the step under
// way, writes what it recorded and throws RunInterrupted. A partitioned run does neither: its drains are collective,
// and a wall-clock or signal decision of one rank is not the others'.
// Used by `kbrain run`, `kbrain compare` and tests, through run_on (models/runtime/run_dispatch.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/energy/energy_meter.hpp"
#include "core/process/stop_signals.hpp"
#include "core/recorders/trace_recorder.hpp"
#include "core/timing/progress.hpp"
#include "core/timing/stopwatch.hpp"
#include "models/runtime/memory_statement.hpp"
#include "models/runtime/non_finite_state.hpp"
#include "models/runtime/run_interrupted.hpp"
#include "models/runtime/run_plan.hpp"
#include "models/runtime/run_request.hpp"
#include "models/runtime/run_result.hpp"

namespace kbrain {

template <class Real>
constexpr const char* precision_name() {
  return std::is_same<Real, float>::value ? "float" : "double";
}

// The population a SONATA spike file names: the experiment's name (a plain file name, checked by the loader).
inline std::string spike_population(const RunPlan& plan) {
  return plan.config && !plan.config->name.empty() ? plan.config->name : std::string("neurons");
}

// Samples held on the device between drains: about 8 MiB of values, at most 4096 samples.
inline int trace_sampler_capacity(std::int64_t width) {
  return static_cast<int>(std::clamp<std::int64_t>((8 << 20) / std::max<std::int64_t>(1, width), 1, 4096));
}
inline constexpr int kProbeSamplerCapacity = 1024;

inline TraceSpec trace_spec_of(const RunPlan& plan, bool single_precision) {
  TraceSpec spec;
  spec.variables = plan.trace_var_names;
  spec.cells = plan.trace_cells;
  spec.every = std::max<std::int64_t>(1, plan.trace_every);
  spec.dt_ms = plan.dt_ms;
  spec.csv = plan.record_csv;
  spec.binary = plan.record_binary;
  spec.single_precision = single_precision;
  if (plan.record_sonata) {  // the recorded membrane potentials, also as a SONATA report (voltage.h5)
    for (std::size_t slot = 0; slot < plan.trace_vars.size(); ++slot) {
      const auto v = std::find(plan.voltage_vars.begin(), plan.voltage_vars.end(), plan.trace_vars[slot]);
      if (v == plan.voltage_vars.end()) continue;
      spec.report_slots.push_back(slot);
      spec.report_elements.push_back(static_cast<std::uint32_t>(v - plan.voltage_vars.begin()));
    }
    spec.report_population = spike_population(plan);
  }
  return spec;
}

// `static constexpr bool kPartitioned = true` in a Simulation: it is one rank's part of a run split over ranks. Its
// samplers are constructed from its state, Sampler(state(), variables, cells, capacity), since they sample the cells
// the rank owns; their drains, their first_non_finite and drain_spikes are collective. So every rank samples the trace
// (a rank without an out_dir too), and the sinks of the rank that writes get full rows.
template <class Sim, class = void>
struct is_partitioned : std::false_type {};
template <class Sim>
struct is_partitioned<Sim, std::void_t<decltype(Sim::kPartitioned)>> : std::bool_constant<Sim::kPartitioned> {};

// `void start_timing()` in a Simulation: called when the warm-up steps are done, so that what it counts for the
// timed phase (synaptic events, say) starts there.
template <class Sim, class = void>
inline constexpr bool kStartsTiming = false;
template <class Sim>
inline constexpr bool kStartsTiming<Sim, std::void_t<decltype(std::declval<Sim&>().start_timing())>> = true;

template <class Sim, class Sampler>
void emplace_sampler(std::optional<Sampler>& s, Sim& sim, const std::vector<int>& variables,
                     const std::vector<std::int64_t>& cells, int capacity) {
  if constexpr (is_partitioned<Sim>::value)
    s.emplace(sim.state(), variables, cells, capacity);
  else
    s.emplace(variables, cells, capacity);
}

// `static MemoryStatement memory(const Plan&, const RunRequest&)` in a Simulation: what it will allocate, from the plan
// alone, refusing what does not fit (models/runtime/memory_statement.hpp).
template <class Sim, class Plan, class = void>
struct states_memory : std::false_type {};
template <class Sim, class Plan>
struct states_memory<Sim, Plan,
                     std::void_t<decltype(Sim::memory(std::declval<const Plan&>(), std::declval<const RunRequest&>()))>>
    : std::true_type {};

// What a run of `plan` on Backend in Real allocates, before anything is: the model's statement (and its own check
// of the backend's memory), then the host's check of what the run adds there, on a CPU backend its backend bytes
// too. Throws ConfigError (exit 2) for a run that does not fit.
template <class Model, class Backend, class Real>
MemoryStatement run_memory(const typename Model::Plan& plan, const RunRequest& request) {
  using Sim = typename Model::template Simulation<Backend, Real>;
  MemoryStatement m;
  if constexpr (states_memory<Sim, typename Model::Plan>::value) m = Sim::memory(plan, request);
  const double host = m.host_bytes + (Backend::is_gpu ? 0.0 : m.device_bytes);
  require_host_bytes(host, plan.config ? plan.config->source.string() : std::string("kbrain"),
                     fmt::format("the run of {} on {}",
                                 plan.size_label.empty() ? std::to_string(plan.cells) : plan.size_label,
                                 Backend::name));
  return m;
}

template <class Model, class Backend, class Real>
RunResult run_model(const typename Model::Plan& plan, const RunRequest& request) {
  using Sim = typename Model::template Simulation<Backend, Real>;
  using Sampler = typename Sim::Sampler;
  RunResult res;
  res.backend = Backend::name;
  res.precision = precision_name<Real>();
  res.steps = plan.steps;

  // ---------------- setup ----------------
  run_memory<Model, Backend, Real>(plan, request);  // refuses, before anything is allocated, what does not fit
  Stopwatch setup;
  Sim sim(plan, request, res);
  std::optional<TraceRecorder> trace;
  std::optional<SpikeRecorder> spike_file;
  std::optional<Sampler> trace_sampler, probe_sampler;
  const std::int64_t every = std::max<std::int64_t>(1, plan.trace_every);
  const std::int64_t probe_every = std::max<std::int64_t>(1, request.probe_every);
  const bool files = !request.out_dir.empty();
  const TraceSpec trace_spec = trace_spec_of(plan, std::is_same<Real, float>::value);
  if ((files || is_partitioned<Sim>::value) && request.write_trace && !plan.trace_vars.empty() &&
      !plan.trace_cells.empty() && (plan.record_csv || plan.record_binary || !trace_spec.report_slots.empty())) {
    if (files) trace.emplace(request.out_dir, trace_spec);
    const auto width = static_cast<std::int64_t>(plan.trace_vars.size() * plan.trace_cells.size());
    emplace_sampler(trace_sampler, sim, plan.trace_vars, plan.trace_cells, trace_sampler_capacity(width));
  }
  if (files && request.write_spikes)
    spike_file.emplace(open_spike_files(request.out_dir, plan.record_csv, plan.record_binary, plan.record_sonata,
                                        spike_population(plan), plan.dt_ms));
  if (!request.probe_cells.empty()) {
    emplace_sampler(probe_sampler, sim, std::vector<int>{plan.probe_var}, request.probe_cells, kProbeSamplerCapacity);
    res.probes.reserve(static_cast<std::size_t>(plan.steps / probe_every) *
                       request.probe_cells.size());
  }
  // The first finite check also loads its kernel and sets up its reduction (a GPU does both lazily, milliseconds):
  // done here, as part of setup, that one-time cost stays out of the simulate phase, whose checks then cost their
  // reduction alone. It checks the initial state too: a non-finite one stops the run before its first step.
  // The value a check found, as "v of cell 12 is NaN or infinite (nan)" or "v of cell 12 is 1e+299 mV, beyond its
  // plausible bound |v| <= 10000 mV ([simulation.plausible] v sets another)" (k: slot * cells + cell, the answer of
  // first_implausible), and whether it is finite.
  bool finite_found = false;
  auto implausible_value = [&](std::int64_t k) {
    const auto slot = static_cast<std::size_t>(k / plan.cells);
    const std::string& name = plan.checked_var_names[slot];
    const double value = Sampler::value_at(sim.state(), plan.checked_vars[slot], k % plan.cells);
    const std::string unit = slot < plan.checked_units.size() && !plan.checked_units[slot].empty() &&
                                     plan.checked_units[slot] != "1"
                                 ? " " + plan.checked_units[slot]
                                 : std::string();
    finite_found = std::isfinite(value);
    if (!finite_found) return fmt::format("{} of cell {} is NaN or infinite ({})", name, k % plan.cells, value);
    return fmt::format("{} of cell {} is {}{}, beyond its plausible bound |{}| <= {}{} ([simulation.plausible] {} "
                       "sets another)",
                       name, k % plan.cells, value, unit, name, plan.checked_bounds[slot], unit, name);
  };
  auto first_implausible = [&] {
    return Sampler::first_implausible(sim.state(), plan.checked_vars, plan.checked_bounds, plan.cells);
  };
  if (!plan.checked_vars.empty()) {
    const std::int64_t k = first_implausible();
    if (k >= 0) {
      const std::string what = implausible_value(k);
      if (trace) trace->close();
      if (spike_file) spike_file->close();
      throw NonFiniteState(fmt::format("the initial state is not {}: {}; the run stopped before its first step",
                                       finite_found ? "plausible" : "finite", what),
                           0);
    }
  }
  sim.fence();
  res.setup_s = setup.seconds() - res.generate_s;
  res.device_bytes = sim.device_bytes();

  // ---------------- simulate (+ output at drain points) ----------------
  double output_s = 0;
  // A run that writes files drains everything it holds and flushes at least every kOutputFlushInterval of wall time.
  // The clock restarts on timed drains only: the spike drains and full buffers in between write some of the output,
  // not all of it, so they must not put the next timed drain off.
  Stopwatch since_flush;
  auto drain = [&](bool final_drain, bool timed = false) {  // timed: every trace sample held so far, then a flush
    sim.fence();  // queued steps belong to "simulate"
    Stopwatch out;
    if (trace_sampler && (final_drain || timed || trace_sampler->full()))
      trace_sampler->drain([&](std::int64_t step, const double* v) { if (trace) trace->record(step, v); });
    if (probe_sampler && (final_drain || probe_sampler->full()))
      probe_sampler->drain(
          [&](std::int64_t, const double* v) { res.probes.insert(res.probes.end(), v, v + probe_sampler->width()); });
    const auto events = sim.drain_spikes(final_drain);
    res.spikes += static_cast<std::int64_t>(events.size());
    if (spike_file) spike_file->record(events);
    if (request.keep_spikes) res.events.insert(res.events.end(), events.begin(), events.end());
    if (timed) {
      if (trace) trace->flush();
      since_flush.restart();
    }
    output_s += out.seconds();
  };
  const bool timed_drains = !is_partitioned<Sim>::value && (trace || spike_file);
  const double flush_interval_s = std::chrono::duration<double>(kOutputFlushInterval).count();
  auto stop_if_asked = [&](std::int64_t done) {  // after a stop signal: what was recorded is written, then it stops
    const int signal = is_partitioned<Sim>::value ? 0 : stop_signal();
    if (signal == 0) return;
    drain(true);
    if (trace) trace->close();
    if (spike_file) spike_file->close();
    throw RunInterrupted(fmt::format("interrupted by {} after step {} of {}", signal_name(signal), done, plan.steps),
                         signal, done);
  };
  auto crossed = [](std::int64_t before, std::int64_t after, std::int64_t k) { return after / k != before / k; };
  // NaN/inf in the plan's checked variables: what was recorded so far is written, then the run stops.
  std::int64_t last_finite = 0;
  auto check_finite = [&](std::int64_t done) {
    if (plan.checked_vars.empty()) return;
    const std::int64_t k = first_implausible();
    if (k < 0) {
      last_finite = done;
      return;
    }
    const std::string what = implausible_value(k);
    drain(true);
    if (trace) trace->close();
    if (spike_file) spike_file->close();
    throw NonFiniteState(
        fmt::format("the state is not {} after step {}: {} (the first such value{}). "
                    "The run stopped; its files hold the steps recorded so far. A smaller dt, stimulus or "
                    "conductance may keep it finite",
                    finite_found ? "plausible" : "finite", done, what,
                    last_finite > 0 ? fmt::format("; after step {} the state was finite and plausible", last_finite)
                                    : ""),
        done);
  };

  // Warm-up steps (plan.warmup_steps) run and record as the others, before the timed phase: its clock, energy and
  // the simulation's own counts (start_timing) start when they are done.
  const std::int64_t warmup = plan.warmup_steps, total_steps = warmup + plan.steps;
  ProgressBar bar(std::string(Backend::name) + "/" + res.precision, total_steps);
  if (!request.progress) bar.finish();
  // The device's energy counter for GPU backends, the host packages' for CPU ones; read around the timed loop.
  std::optional<EnergyMeter> energy;
  const auto start_energy = [&] {
    energy.emplace(Backend::is_gpu ? EnergyMeter::Source::Gpu : EnergyMeter::Source::Host,
                   Backend::is_gpu ? nvml_index(Backend::describe().device_index) : 0);
  };
  if (warmup == 0) start_energy();
  Stopwatch loop;
  double output_before_timing = 0;
  const std::int64_t stride = sim.steps_per_call();
  for (std::int64_t n = 0; n < total_steps; n += stride) {
    if (!energy && n >= warmup) {
      sim.fence();
      if constexpr (kStartsTiming<Sim>) sim.start_timing();
      output_before_timing = output_s;
      loop.restart();
      start_energy();
    }
    sim.step();
    const std::int64_t done = n + stride;
    if (trace_sampler && crossed(n, done, every)) trace_sampler->capture(sim.state(), done);
    if (probe_sampler && crossed(n, done, probe_every)) probe_sampler->capture(sim.state(), done);
    if (request.finite_check_every > 0 && crossed(n, done, request.finite_check_every)) check_finite(done);
    const bool timed = timed_drains && since_flush.seconds() >= flush_interval_s;
    if ((trace_sampler && trace_sampler->full()) || (probe_sampler && probe_sampler->full()) ||
        sim.spikes_due(n, done, spike_file.has_value()) || timed)
      drain(false, timed);
    stop_if_asked(done);
    if (crossed(n, done, 64)) bar.update(done);
  }
  const std::int64_t done = sim.steps_done();
  if (last_finite != done) check_finite(done);
  drain(true);
  const double total = loop.seconds();
  if (!energy) start_energy();  // a run stopped within its warm-up
  res.steps = std::max<std::int64_t>(0, done - warmup);
  res.warmup_steps = done - res.steps;
  res.energy_j = energy->joules();
  res.energy_counter = energy->counter();
  bar.finish();

  Stopwatch close;
  if (trace) trace->close();
  if (spike_file) spike_file->close();
  const double timed_output_s = output_s - output_before_timing;  // drains inside the timed loop
  res.simulate_s = total - std::min(total, timed_output_s);
  res.output_s = output_s + close.seconds();
  sim.finish(res);
  return res;
}

}  // namespace kbrain
