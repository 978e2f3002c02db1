#include "models/galbraith_decoder/decoder_schema.hpp"

#include <limits>

namespace kbrain::galbraith {

ModelSchema decoder_schema() {
  const double inf = std::numeric_limits<double>::infinity();
  ModelSchema s;
  s.kind = "galbraith_decoder";
  s.summary = "Galbraith 2010 §5.1 neural decoding: a tuned LIF population encodes a 2-D band-limited signal; "
              "PSC-filtered, low-passed, delay-corrected responses give linear decoders (Γ = A·Aᵀ, Υ = A·X, "
              "Cholesky); NRMSE on a test signal";
  s.family = "model_tables";
  s.variables = {{kDecoderVarNames[0], "1"}};
  s.parameter_sets = {"herzfeld2010"};
  s.variant_setting = "simulation.trains";
  s.tables.push_back(TableSpec{
      "simulation",
      {SettingSpec::choice("trains", {"su", "mu"},
                           "su: one response per neuron (single units); mu: the summed trains of groups of "
                           "population.group neighbouring neurons (multi-units)"),
       SettingSpec::choice("convolution", {"fft", "direct"},
                           "the PSC convolution: fft (FFTW on the host, cuFFT on CUDA, lengths padded to the next "
                           "power of two) or direct (the sum over the filter's taps)"),
       SettingSpec::number("regularisation", 0, inf, 1e-3,
                           "λ: σ² = λ·trace(Γ)/units is added to Γ's diagonal before the Cholesky solve"),
       SettingSpec::choice("delay", {"global", "unit"},
                           "delay correction: one lag for all units (the peak of the summed cross-correlation "
                           "power) or one lag per unit"),
       SettingSpec::number("max_lag_ms", 0, 10000, 200, "largest lag searched by the delay correction (ms)"),
       SettingSpec::number("psc_scale", 1, 100, 5, "PSC filter length in units of τ_psc (the study's 5)"),
       SettingSpec::number("lowpass_hz", 0, 1e5, 0,
                           "cut-off of the responses' 2nd-order Butterworth low-pass (0: stimulus.cutoff_hz, the "
                           "spec's proposal)")}});
  s.tables.push_back(TableSpec{
      "population",
      {SettingSpec::integer("neurons", 1, 1e6, 150, "N, LIF neurons; compare.sizes sweeps it"),
       SettingSpec::integer("seed", 0, 9.007199254740992e15, 1, "counter-RNG seed (parameters, directions, stimulus)"),
       SettingSpec::integer("group", 1, 1000, 4, "neurons per multi-unit (neighbours on one electrode)"),
       SettingSpec::number("tau_ref_min_ms", 0, 1000, 1, "τ_ref range, lower end (ms)"),
       SettingSpec::number("tau_ref_max_ms", 0, 1000, 3, "τ_ref range, upper end (ms)"),
       SettingSpec::number("tau_rc_min_ms", 1e-3, 1e4, 10, "τ_RC range, lower end (ms)"),
       SettingSpec::number("tau_rc_max_ms", 1e-3, 1e4, 30, "τ_RC range, upper end (ms)"),
       SettingSpec::number("tau_psc_min_ms", 1e-3, 1e4, 2, "τ_psc range, lower end (ms)"),
       SettingSpec::number("tau_psc_max_ms", 1e-3, 1e4, 10, "τ_psc range, upper end (ms)"),
       SettingSpec::number("max_rate_hz", 1e-3, 1e4, 100, "r_max, the rate at full drive (e·x = 1)"),
       SettingSpec::number("noise_error", 0, 1, 0.1, "r_min = r_max·noise_error, the rate at zero drive")}});
  s.tables.push_back(TableSpec{
      "stimulus",
      {SettingSpec::number("train_s", 1e-3, 1e5, 100, "training signal length (s)"),
       SettingSpec::number("test_s", 1e-3, 1e5, 10, "test signal length (s)"),
       SettingSpec::number("cutoff_hz", 1e-3, 1e5, 5, "band limit of the white-noise velocity components (Hz)"),
       SettingSpec::number("rms", 1e-9, 1e9, 0.5, "RMS of each component")}});
  return s;
}

}  // namespace kbrain::galbraith
