#pragma once
// A NetworkSpec as the generator's kernels see it: sizes, seed, and per presynaptic index its receptor and weight
// rule (excitatory neurons, inhibitory neurons, Poisson sources), plus the delay rule. Copyable into kernels.
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "spiking/network_spec.hpp"
#include "spiking/synapse_draws.hpp"

namespace kbrain::spiking {

struct NetworkRules {
  std::int64_t neurons = 0, excitatory = 0, sources = 0;
  std::uint64_t seed = 1;
  int inhibitory_receptor = 1;
  WeightRule w_exc, w_inh, w_poisson;
  DelayRule delay;

  KBRAIN_HOST_DEVICE inline int receptor(std::int64_t pre) const {
    return (pre >= neurons || pre < excitatory) ? 0 : inhibitory_receptor;
  }
  KBRAIN_HOST_DEVICE inline const WeightRule& weight_rule(std::int64_t pre) const {
    return pre >= neurons ? w_poisson : (pre < excitatory ? w_exc : w_inh);
  }
  KBRAIN_HOST_DEVICE inline double weight(std::int64_t pre, std::int64_t post) const {
    return weight_rule(pre).at(seed, pre, post);
  }
  std::int64_t presynaptic() const { return neurons + sources; }
};

inline WeightRule weight_rule_of(const WeightSpec& w) {
  WeightRule r;
  if (w.kind == "uniform") {
    r.uniform = 1;
    r.low = w.low;
    r.span = w.high - w.low;
  } else if (w.kind == "constant") {
    r.value = w.value;
  } else {
    throw std::invalid_argument("network: unknown weight kind '" + w.kind + "'");
  }
  return r;
}

inline NetworkRules rules_of(const NetworkSpec& s, const DelayRule& delay) {
  NetworkRules r;
  r.neurons = s.neurons;
  r.excitatory = s.excitatory;
  r.sources = s.poisson_sources;
  r.seed = s.seed;
  r.inhibitory_receptor = s.inhibitory_receptor;
  r.w_exc = weight_rule_of(s.w_exc);
  r.w_inh = weight_rule_of(s.w_inh);
  r.w_poisson = weight_rule_of(s.w_poisson);
  r.delay = delay;
  return r;
}

// The spec's own delay (network.delay, one for every synapse) in steps of dt_ms.
inline DelayRule constant_delay_of(const NetworkSpec& s, double dt_ms) {
  return DelayRule::constant(static_cast<std::int32_t>(std::llround(s.delay_ms / dt_ms)));
}

}  // namespace kbrain::spiking
