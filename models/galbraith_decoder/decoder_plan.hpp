#pragma once
// The plan of a galbraith_decoder run: the population, the stimulus and the pipeline's choices. Everything random
// (neuron parameters, preferred directions, the stimulus spectra) is drawn from the counter RNG from the seed, so
// every backend and precision decodes the same problem.
#include <cstdint>
#include <string>

#include "core/config/experiment_config.hpp"
#include "models/runtime/run_plan.hpp"

namespace kbrain::galbraith {

struct DecoderPlan : RunPlan {
  std::int64_t neurons = 150, group = 4;
  std::uint64_t seed = 1;
  double tau_ref_ms[2] = {1, 3}, tau_rc_ms[2] = {10, 30}, tau_psc_ms[2] = {2, 10};
  double max_rate_hz = 100, noise_error = 0.1;
  double train_s = 100, test_s = 10, cutoff_hz = 5, rms = 0.5;
  bool multi_unit = false;    // simulation.trains = "mu"
  bool fft = true;            // simulation.convolution = "fft"
  bool per_unit_delay = false;
  double regularisation = 1e-3, max_lag_ms = 200, psc_scale = 5, lowpass_hz = 5;
  std::int64_t train_samples = 0, test_samples = 0;

  std::int64_t units(bool mu) const { return mu ? (neurons + group - 1) / group : neurons; }
};

DecoderPlan make_decoder_plan(const ExperimentConfig& cfg, const PlanRequest& request);
// The plan keeps a pointer to its experiment: a temporary one would dangle.
DecoderPlan make_decoder_plan(const ExperimentConfig&& cfg, const PlanRequest& request) = delete;

}  // namespace kbrain::galbraith
