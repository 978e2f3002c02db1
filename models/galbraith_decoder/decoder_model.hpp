#pragma once
// Galbraith 2010's neural decoding pipeline (§5.1; spec docs/specs/galbraith.md §4) as a unit (models/registry.hpp
// lists it): kind "galbraith_decoder", its schema (decoder_schema.cpp), plan (decoder_plan.cpp), the FFT interface
// (decoder_fft.hpp: FFTW / cuFFT), the signal pieces (decoder_signal.hpp) and the simulation (decoder_simulation.hpp,
// one whole pipeline per step). Compare columns: NRMSE, the lag, and the time of each component.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/report/comparison_table.hpp"
#include "models/galbraith_decoder/decoder_plan.hpp"
#include "models/galbraith_decoder/decoder_schema.hpp"
#include "models/galbraith_decoder/decoder_simulation.hpp"

namespace kbrain::galbraith {

struct GalbraithDecoderModel {
  using Plan = DecoderPlan;
  template <class Backend, class Real>
  using Simulation = DecoderSimulation<Backend, Real>;
  static constexpr const char* kCells = "units";
  static constexpr const char* kConnections = "Γ flops";
  static constexpr const char* kStrategy = "pipeline";
  static constexpr bool kSpikeStatistics = false;
  static constexpr std::int64_t kProbeEvery = 1;
  static constexpr bool kBiologicalTime = false;  // a step is one whole pipeline

  static std::vector<ModelSchema> schemas() { return {decoder_schema()}; }
  static Plan make_plan(const ExperimentConfig& cfg, const PlanRequest& r) { return make_decoder_plan(cfg, r); }

  // Samples of the test estimate x̂ (both components) spread over the test signal.
  static std::vector<std::int64_t> probe_cells(const Plan& p) {
    const std::int64_t total = 2 * p.test_samples;
    const std::int64_t wanted = std::min<std::int64_t>(total, std::max<std::int64_t>(16, p.config->compare.probe_cells));
    std::vector<std::int64_t> ids;
    for (std::int64_t k = 0; k < wanted; ++k) ids.push_back(static_cast<std::int64_t>(double(k) * double(total) / double(wanted)));
    return ids;
  }

  static std::vector<std::pair<std::string, std::string>> describe(const Plan& p) {
    return {
        {"stimulus", fmt::format("2-D band-limited white noise (X, Y velocity), every DFT bin up to {} Hz a complex "
                                 "Gaussian from the counter RNG (seed {}, streams 1000-1003), DC 0, scaled to RMS {} per "
                                 "component; training {} s ({} samples), test {} s ({} samples), dt {} ms [choice: "
                                 "cut-off, RMS]",
                                 p.cutoff_hz, p.seed, p.rms, p.train_s, p.train_samples, p.test_s, p.test_samples,
                                 p.dt_ms)},
        {"population", fmt::format("{} LIF neurons, V_th 1, reset 0; uniform τ_ref {}-{} ms, τ_RC {}-{} ms, τ_psc {}-{} "
                                   "ms; r_max {} Hz, r_min = r_max·{} [choice: ranges]",
                                   p.neurons, p.tau_ref_ms[0], p.tau_ref_ms[1], p.tau_rc_ms[0], p.tau_rc_ms[1],
                                   p.tau_psc_ms[0], p.tau_psc_ms[1], p.max_rate_hz, p.noise_error)},
        {"tuning", "J_bias = 1/(1 - exp((τ_ref r_min - 1)/(τ_RC r_min))), α = 1/(1 - exp((τ_ref r_max - 1)/(τ_RC "
                   "r_max))) - J_bias (the study's code); J_i(t) = α_i (e_i·x(t)) + J_bias,i, e_i at a uniform random "
                   "angle [inf: NEF convention]"},
        {"lif", "exact exponential integration per step, the spike time interpolated inside the step and the "
                "refractory period counted from it (rates follow the analytic LIF curve, not rounded to whole steps); "
                "one thread per neuron over all samples [choice]"},
        {"trains", p.multi_unit ? fmt::format("MU: the summed trains of groups of {} neighbouring neurons (the last "
                                              "group may be smaller) [choice: group size]", p.group)
                                : "SU: one response per neuron"},
        {"psc", fmt::format("order 0: h[j] = a^j / Σ, a = exp(-dt/τ_psc), L = ceil({}·τ_psc/dt) taps (§1.2); SU: the "
                            "neuron's τ_psc; MU: the group's mean τ_psc [choice]; convolution {}",
                            p.psc_scale, p.fft ? "by FFT (FFTW / cuFFT), padded to the next power of two (400 000 -> "
                                                 "2^19), the filter's transform in closed form"
                                               : "direct (sum over the taps)")},
        {"lowpass", fmt::format("2nd-order Butterworth at {} Hz (bilinear, pre-warped), causal, state in double "
                                "[choice]", p.lowpass_hz)},
        {"delay", fmt::format("lag of the peak of r_X(τ)² + r_Y(τ)² (cross-correlations with both stimulus components "
                              "by FFT, τ in 0..{} ms), {}; responses moved earlier by it (the last samples repeat the "
                              "last value); the training lags are applied to the test responses; the population runs max_lag before and after the test window on the periodic continuation of the test signal, so the corrected test responses cover the whole window [choice]",
                              p.max_lag_ms, p.per_unit_delay ? "per unit" : "global (summed over units)")},
        {"decoders", fmt::format("Γ = A·Aᵀ, Υ = A·X (Kokkos Kernels gemm: cuBLAS / host BLAS), σ² = {}·trace(Γ)/units "
                                 "on Γ's diagonal, Cholesky solve Γφ = Υ in double on the host (LAPACK dposv), "
                                 "x̂ = A_testᵀ·φ; no constant term [choice: regulariser]", p.regularisation)},
        {"nrmse_definition", "RMSE / (max - min) of the true test component, per component, averaged over X and Y, over the "
                  "whole 10 s test signal [choice]"},
        {"timing", "fenced per component: lif, units (MU sums), psc, lowpass, xcorr, delay, gamma, upsilon, solve, "
                   "estimate; the stimulus is drawn in setup"}};
  }

  static std::vector<ReportColumn> agreement_columns(const Plan&) {
    return {{"nrmse", "NRMSE", "sig3"},        {"lag_ms", "lag ms", "sig3"},      {"lif_s", "LIF s", "sig3"},
            {"psc_s", "PSC conv s", "sig3"},   {"lowpass_s", "low-pass s", "sig3"}, {"xcorr_s", "xcorr s", "sig3"},
            {"gamma_s", "Γ s", "sig3"},        {"upsilon_s", "Υ s", "sig3"},      {"solve_s", "solve s", "sig3"},
            {"estimate_s", "x̂ s", "sig3"},     {"max_dxhat", "max |Δx̂|", "sig3"}};
  }
  static std::vector<ReportValue> agreement(const Plan&, const RunRequest& req, const RunResult& r,
                                            const RunResult& ref, bool) {
    const std::size_t n = std::min({r.probes.size(), ref.probes.size(), req.probe_cells.size()});
    double diff = 0;
    for (std::size_t k = 0; k < n; ++k) diff = std::max(diff, std::fabs(r.probes[k] - ref.probes[k]));
    auto value = [&](const char* key) {
      const double v = r.value(key, -1);
      return v >= 0 ? ReportValue::num(v) : ReportValue::missing();
    };
    std::vector<ReportValue> out;
    for (const char* k : {"nrmse", "lag_ms", "lif_s", "psc_s", "lowpass_s", "xcorr_s", "gamma_s", "upsilon_s",
                          "solve_s", "estimate_s"})
      out.push_back(value(k));
    out.push_back(n > 0 ? ReportValue::num(diff) : ReportValue::missing());
    return out;
  }
};

}  // namespace kbrain::galbraith
