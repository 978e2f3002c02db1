#include "models/galbraith_decoder/decoder_plan.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/config/model_settings.hpp"

namespace kbrain::galbraith {

DecoderPlan make_decoder_plan(const ExperimentConfig& cfg, const PlanRequest& request) {
  DecoderPlan p;
  p.config = &cfg;
  const ModelSettings& s = cfg.settings;
  p.steps = request.steps > 0 ? request.steps : cfg.steps;
  p.dt_ms = cfg.dt;
  p.neurons = request.size > 0 ? request.size : s.integer("population.neurons");
  p.group = s.integer("population.group");
  p.seed = static_cast<std::uint64_t>(s.integer("population.seed"));
  auto range = [&](const char* lo, const char* hi, double* out) {
    out[0] = s.number(std::string("population.") + lo);
    out[1] = s.number(std::string("population.") + hi);
    if (out[1] < out[0])
      s.fail(std::string("population.") + hi, fmt::format("the range's upper end {} is below its lower end {}", out[1], out[0]));
  };
  range("tau_ref_min_ms", "tau_ref_max_ms", p.tau_ref_ms);
  range("tau_rc_min_ms", "tau_rc_max_ms", p.tau_rc_ms);
  range("tau_psc_min_ms", "tau_psc_max_ms", p.tau_psc_ms);
  p.max_rate_hz = s.number("population.max_rate_hz");
  p.noise_error = s.number("population.noise_error");
  if (p.noise_error <= 0)
    s.fail("population.noise_error", "must be > 0: r_min = r_max·noise_error must be a positive rate for J_bias");
  if (p.tau_ref_ms[1] * 1e-3 * p.max_rate_hz >= 1)
    s.fail("population.max_rate_hz", fmt::format("r_max = {} Hz is not reachable with τ_ref up to {} ms (needs "
                                                 "τ_ref·r_max < 1)", p.max_rate_hz, p.tau_ref_ms[1]));
  p.train_s = s.number("stimulus.train_s");
  p.test_s = s.number("stimulus.test_s");
  p.cutoff_hz = s.number("stimulus.cutoff_hz");
  p.rms = s.number("stimulus.rms");
  const std::string trains = request.variant.empty() ? s.text("simulation.trains") : request.variant;
  p.multi_unit = trains == "mu";
  p.fft = s.text("simulation.convolution") == "fft";
  p.per_unit_delay = s.text("simulation.delay") == "unit";
  p.regularisation = s.number("simulation.regularisation");
  p.max_lag_ms = s.number("simulation.max_lag_ms");
  p.psc_scale = s.number("simulation.psc_scale");
  p.train_samples = static_cast<std::int64_t>(std::llround(p.train_s * 1000.0 / p.dt_ms));
  p.test_samples = static_cast<std::int64_t>(std::llround(p.test_s * 1000.0 / p.dt_ms));
  if (p.test_samples < 16 || p.train_samples < 16)
    s.fail("stimulus.train_s", fmt::format("train_s and test_s must hold at least 16 samples of dt = {} ms", p.dt_ms));
  if (p.cutoff_hz >= 0.5 / (p.dt_ms * 1e-3))
    s.fail("stimulus.cutoff_hz", fmt::format("the cut-off {} Hz is not below the Nyquist frequency {} Hz", p.cutoff_hz,
                                             0.5 / (p.dt_ms * 1e-3)));
  if (p.cutoff_hz * p.test_s < 1)
    s.fail("stimulus.cutoff_hz", fmt::format("a {} s signal has no frequency bin at or below {} Hz", p.test_s, p.cutoff_hz));
  p.lowpass_hz = s.number("simulation.lowpass_hz") > 0 ? s.number("simulation.lowpass_hz") : p.cutoff_hz;
  if (p.lowpass_hz >= 0.5 / (p.dt_ms * 1e-3))
    s.fail("simulation.lowpass_hz", fmt::format("the low-pass cut-off {} Hz is not below the Nyquist frequency", p.lowpass_hz));
  if (double(p.neurons) * double(p.train_samples) > 4.0e9)
    s.fail("population.neurons", fmt::format("N x T = {} x {} responses: at most 4e9", p.neurons, p.train_samples));
  if (p.max_lag_ms / p.dt_ms >= double(p.train_samples))
    s.fail("simulation.max_lag_ms", "the largest lag must be shorter than the training signal");

  const std::int64_t units = p.units(p.multi_unit);
  p.cells = units;
  p.connections = 2.0 * double(units) * double(units) * double(p.train_samples);  // Γ's flops
  p.size_label = fmt::format("{} {}", p.neurons, trains);
  p.work_per_step = double(p.neurons) * double(p.train_samples + p.test_samples) * 4.0;
  p.probe_var = 0;
  p.record_spikes = false;
  return p;
}

}  // namespace kbrain::galbraith
