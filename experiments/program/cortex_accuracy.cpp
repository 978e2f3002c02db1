// `kbrain accuracy`: each cortex_hh numerical method against the reference (forward Euler at a small dt, double,
// same network, delays and input) on one backend: matched spike-time error, rate error, rhythm frequency.
// docs/models/cortex-hh.md describes the metrics and holds the measured tables.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "backends/registry.hpp"
#include "experiments/program/build_info.hpp"
#include "experiments/program/commands.hpp"
#include "models/registry.hpp"
#include "models/runtime/run_dispatch.hpp"
#include "spiking/spike_accuracy.hpp"

namespace kbrain {

namespace {

struct Method {
  std::string name, integrator;
  bool eai = false, lut = false, tpm = false, single = false;
};

Method parse_method(const std::string& name) {
  Method m;
  m.name = name;
  std::stringstream ss(name);
  std::string tok;
  bool first = true;
  while (std::getline(ss, tok, '+')) {
    if (first && (tok == "fe" || tok == "ee")) m.integrator = tok == "fe" ? "forward_euler" : "exponential_euler";
    else if (tok == "eai") m.eai = true;
    else if (tok == "lut") m.lut = true;
    else if (tok == "tpm") m.tpm = true;
    else if (tok == "float") m.single = true;
    else throw ConfigError(fmt::format("--methods: \"{}\": expected fe|ee followed by +eai, +lut, +tpm, +float", name));
    first = false;
  }
  if (m.integrator.empty()) throw ConfigError(fmt::format("--methods: \"{}\" must start with fe or ee", name));
  return m;
}

struct Measured {
  RunResult run;
  std::vector<spiking::TimedSpike> spikes;
  double dt = 0, rhythm_hz = 0;
  std::vector<double> rates;  // per population
};

Measured measure(const ExperimentConfig& cfg, const AccuracyOptions& o, Precision precision, double duration_ms) {
  const double dt = cfg.spiking.dt_given ? cfg.dt : 0.02;  // wang2012's dt
  const std::int64_t steps = std::llround(duration_ms / dt);
  const point::SpikingPlan plan = point::make_spiking_plan(cfg, PlanRequest{o.size, 0, steps});
  RunRequest request;
  request.progress = false;
  Measured m;
  m.dt = plan.setup->params.dt;
  m.run = run_on<cortex::CortexHhModel>(plan, o.backend, precision, request);
  m.spikes = spiking::to_times(m.run.events, m.dt);
  const std::int64_t n = plan.setup->network.neurons;
  const auto rate = spiking::population_rate(m.spikes, n, o.transient_ms, duration_ms, 1.0);
  m.rhythm_hz = spiking::spectral_peak_hz(rate, 1.0, 2.0, 100.0, 0.25);
  for (const auto& p : m.run.populations) m.rates.push_back(p.rate_hz);
  return m;
}

}  // namespace

int cmd_accuracy(const AccuracyOptions& o) {
  const ExperimentConfig base = load_model_experiment(o.experiment);
  if (base.model != "cortex_hh") throw ConfigError(o.experiment + ": kbrain accuracy needs model.kind = \"cortex_hh\"");
  const double duration = o.duration_ms > 0 ? o.duration_ms : double(base.steps) * base.dt;
  const Precision precision = o.precision.empty() ? base.precision : parse_precision(o.precision);
  // Every input is checked before the first line is printed or the reference run starts: a mistake is one message.
  std::vector<Method> methods;
  for (const std::string& name : o.methods) methods.push_back(parse_method(name));
  if (!has_backend(o.backend)) with_backend(o.backend, [](auto) {});  // throws UnknownBackend naming the built ones
  if (!o.out.empty()) {  // tried now, and a file made only for the try removed again
    std::error_code ec;
    const bool existed = std::filesystem::exists(o.out, ec);
    if (!std::ofstream(o.out, std::ios::app))
      throw ConfigError(fmt::format("--out {}: cannot open the file for appending", o.out));
    if (!existed) std::filesystem::remove(o.out, ec);
  }

  ExperimentConfig ref_cfg = base;
  ref_cfg.spiking.integrator = "forward_euler";
  ref_cfg.spiking.eai = false;
  ref_cfg.spiking.lut = false;
  ref_cfg.spiking.tpm = false;
  ref_cfg.spiking.record_spikes = false;
  ref_cfg.spiking.dt_given = true;
  ref_cfg.dt = o.reference_dt;
  fmt::print(stderr, "[accuracy] reference: forward Euler dt = {} ms, double, {} ms on {}\n", o.reference_dt, duration,
             o.backend);
  const Measured ref = measure(ref_cfg, o, Precision::Double, duration);
  const std::int64_t neurons = o.size > 0 ? o.size : base.spiking.neurons;

  std::string table;
  table += fmt::format("| method | dt (ms) | network step (ms) | precision | spikes | matched (% of ref) | "
                       "mean abs dt (ms) | median (ms) | p95 (ms) | early matched (%) | early mean abs dt (ms) | exc rate (Hz) | "
                       "inh rate (Hz) | rate error (%) | rhythm (Hz) | simulate (s) |\n");
  table += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  auto early = [&](const std::vector<spiking::TimedSpike>& v) {
    std::vector<spiking::TimedSpike> out;
    for (const auto& x : v)
      if (x.t_ms < o.early_ms) out.push_back(x);
    return out;
  };
  const auto ref_early = early(ref.spikes);
  auto total_rate = [&](const Measured& m) {
    return double(m.spikes.size()) / (double(neurons) * duration * 1e-3);
  };
  auto rates = [&](const Measured& m, std::size_t k) { return k < m.rates.size() ? m.rates[k] : 0.0; };
  table += fmt::format("| reference fe | {} | {} | double | {} | 100 | 0 | 0 | 0 | 100 | 0 | {:.3f} | {:.3f} | 0 | {:.2f} | "
                       "{:.2f} |\n", o.reference_dt, o.reference_dt, ref.spikes.size(), rates(ref, 0), rates(ref, 1),
                       ref.rhythm_hz, ref.run.simulate_s);
  for (const Method& method : methods) {
    const std::string& name = method.name;
    ExperimentConfig cfg = base;
    cfg.spiking.integrator = method.integrator;
    cfg.spiking.eai = method.eai;
    cfg.spiking.lut = method.lut;
    cfg.spiking.tpm = method.tpm;
    cfg.spiking.record_spikes = false;
    fmt::print(stderr, "[accuracy] {} ...\n", name);
    const Precision p = method.single ? Precision::Float : precision;
    const Measured m = measure(cfg, o, p, duration);
    const auto match = spiking::match_spikes(ref.spikes, m.spikes, neurons, o.window_ms);
    const auto match_early = spiking::match_spikes(ref_early, early(m.spikes), neurons, o.window_ms);
    const double rate_err = 100.0 * (total_rate(m) - total_rate(ref)) / std::max(1e-12, total_rate(ref));
    const double step_ms = cfg.spiking.eai.value_or(false) ? 1.0 : cfg.dt;
    table += fmt::format("| {} | {} | {} | {} | {} | {:.1f} | {:.4f} | {:.4f} | {:.4f} | {:.1f} | {:.4f} | {:.3f} | {:.3f} | "
                         "{:+.2f} | {:.2f} | {:.2f} |\n",
                         name, cfg.dt, step_ms, to_string(p), m.spikes.size(),
                         100.0 * double(match.matched) / double(std::max<std::int64_t>(1, match.reference)),
                         match.mean_abs_ms, match.median_abs_ms, match.p95_abs_ms,
                         100.0 * double(match_early.matched) / double(std::max<std::int64_t>(1, match_early.reference)),
                         match_early.mean_abs_ms, rates(m, 0), rates(m, 1), rate_err,
                         m.rhythm_hz, m.run.simulate_s);
  }
  const std::string header = fmt::format(
      "{} ({}), {} neurons, {} ms, backend {}, commit {}, {}; matching window {} ms; early = spikes before {} ms; "
      "rhythm = peak of the population rate spectrum (1 ms bins, from {} ms)\n\n",
      base.name, o.experiment, neurons, duration, o.backend, git_commit(), today_iso(), o.window_ms, o.early_ms,
      o.transient_ms);
  fmt::print("{}{}", header, table);
  if (!o.out.empty()) {
    std::ofstream f(o.out, std::ios::app);
    f << header << table << "\n";
  }
  return 0;
}

}  // namespace kbrain
