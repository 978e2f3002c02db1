#pragma once
// The exact spike counts of the study's regression (../shared/docs/specs/galbraith.md §1.4), for an overdriven
// network: one spike fires its target on the next step and the stimulus fires neuron 0 on its first allowed step.
// Then neuron 0 fires at steps 1, 1 + P, 1 + 2P, ... (P = refractory steps + 1); on the ring neuron i first fires at
// step i + 1, in the fully connected network (self loops too) every other neuron at step 2; each then every P steps.
// Over T steps: count = (T - 1 - first) / P + 1 when first <= T - 1, else 0. Thesis: "Neurons 1-3 spike 4445 times,
// neurons 4-12 spike 4444 times, ..." (T = 40 000, P = 9). Host-only.
#include <cstdint>
#include <vector>

#include "models/galbraith_lif/galbraith_plan.hpp"

namespace kbrain::galbraith {

// One RK4 step from V = 0 under a constant J gives V = J R g with g = x - x^2/2 + x^3/6 - x^4/24, x = dt / tau_rc.
inline bool overdriven(const GalbraithPlan& p) {
  const double x = p.dt_ms / p.params.tau_rc;
  const double g = x - x * x / 2 + x * x * x / 6 - x * x * x * x / 24;
  const double r = p.params.r_leak * g;
  return p.params.weight * p.filter.front() * r > p.params.v_th && p.params.stimulus * r > p.params.v_th;
}

// The closed-form counts per neuron, or an empty vector where no closed form applies (random and file networks,
// another stimulus, a network that is not overdriven).
inline std::vector<std::int64_t> closed_form_counts(const GalbraithPlan& p, std::int64_t steps) {
  const bool known_topology = p.topology == Topology::Ring || p.topology == Topology::Full;
  if (!known_topology || p.stimulated != std::vector<std::int32_t>{0} || !overdriven(p)) return {};
  const std::int64_t period = p.refractory_steps + 1;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(p.neurons()));
  for (std::int64_t i = 0; i < p.neurons(); ++i) {
    const std::int64_t first = p.topology == Topology::Ring ? i + 1 : (i == 0 ? 1 : 2);
    counts[static_cast<std::size_t>(i)] = first <= steps - 1 ? (steps - 1 - first) / period + 1 : 0;
  }
  return counts;
}

inline std::int64_t closed_form_total(const GalbraithPlan& p, std::int64_t steps) {
  const auto counts = closed_form_counts(p, steps);
  if (counts.empty()) return -1;
  std::int64_t total = 0;
  for (const auto c : counts) total += c;
  return total;
}

}  // namespace kbrain::galbraith
