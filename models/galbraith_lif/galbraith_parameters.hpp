#pragma once
// Parameters of Galbraith 2010's agent-style LIF network (chapter 4, appendix C): every neuron identical. The study
// printed none of the model constants (they lived in its timing.xml); the defaults are the spec's proposed set
// (../shared/docs/specs/galbraith.md §1.1), chosen so that one spike fires its target and the stimulus fires the
// driven neuron on its first allowed step: the "overdriven" network of the study's exact spike-count regression.
// Units: ms; V, J and R are normalised (V_th = 1). Host plain data; the kernels take a copy (KernelParams).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace kbrain::galbraith {

struct GalbraithParams {
  double tau_rc = 20;       // ms, membrane time constant
  double r_leak = 1;        // membrane resistance R (dV/dt = (J R - V) / tau_rc)
  double v_th = 1;          // threshold; reset to 0
  double tau_ref = 2;       // ms, refractory period (strict: integrated again only after round(tau_ref/dt) steps)
  double tau_psc = 5;       // ms, PSC filter time constant
  int filter_order = 0;     // n of h(t) = t^n exp(-t/tau_psc)
  double filter_scale = 5;  // filter length L = ceil(filter_scale * tau_psc / dt) taps
  double weight = 2000;     // synaptic weight of generated networks (file networks: see network.weights)
  double stimulus = 1000;   // J_stim of the stimulated neurons (stimulus.neurons)
};

// L = ceil(scale * tau_psc / dt), computed so that an exact quotient (5 * 5 / 0.25 = 100) is not pushed to the next
// whole number by rounding of the division.
inline std::int64_t filter_taps(const GalbraithParams& p, double dt_ms) {
  const double x = p.filter_scale * p.tau_psc / dt_ms;
  const double nearest = std::round(x);
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::fabs(x - nearest) <= 1e-9 * x ? nearest : std::ceil(x)));
}

// h[j] = (j dt)^n exp(-j dt / tau_psc), j = 0 .. L-1, normalised to sum 1 (0^0 = 1: h[0] > 0 for n = 0).
inline std::vector<double> psc_filter(const GalbraithParams& p, double dt_ms) {
  const std::int64_t taps = filter_taps(p, dt_ms);
  std::vector<double> h(static_cast<std::size_t>(taps));
  double sum = 0;
  for (std::int64_t j = 0; j < taps; ++j) {
    const double t = double(j) * dt_ms;
    h[static_cast<std::size_t>(j)] = (p.filter_order == 0 ? 1.0 : std::pow(t, p.filter_order)) * std::exp(-t / p.tau_psc);
    sum += h[static_cast<std::size_t>(j)];
  }
  for (double& v : h) v /= sum;
  return h;
}

// Steps a neuron that spiked at step n stays refractory: it is integrated again from step n + refractory_steps + 1.
inline std::int64_t refractory_steps(const GalbraithParams& p, double dt_ms) {
  return static_cast<std::int64_t>(std::llround(p.tau_ref / dt_ms));
}

}  // namespace kbrain::galbraith
