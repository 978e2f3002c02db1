#pragma once
// What a random spiking network is: excitatory and inhibitory populations, their connectivity rule, weights,
// delay and Poisson sources. Generated on the simulating backend from counter-based draws keyed on (seed, neuron,
// draw) (spiking/network_generation.hpp): the same seed gives the same network on every backend and thread count.
#include <cstdint>
#include <string>
#include <vector>

#include "spiking/synapse_network.hpp"

namespace kbrain::spiking {

struct WeightSpec {
  std::string kind = "constant";  // constant | uniform (in [low, high))
  double value = 0.0;
  double low = 0.0, high = 0.0;
};

struct NetworkSpec {
  std::string connectivity = "fixed_probability";  // fixed_probability | fixed_in_degree | all_to_all | none
  std::int64_t neurons = 4000;
  std::int64_t excitatory = 3200;      // first `excitatory` neurons are "exc", the rest "inh"
  double probability = 0.02;           // fixed_probability: each directed pair independently
  std::int64_t in_degree = 0;          // fixed_in_degree: distinct presynaptic neurons per neuron
  bool self_connections = false;       // all_to_all / fixed_*: may a neuron connect to itself
  WeightSpec w_exc, w_inh;             // model units (nS, mV, or input units)
  int inhibitory_receptor = 1;         // 0 for models with one receptor (delta synapses, signed weights)
  double delay_ms = 0.0;               // every synapse; rounded to whole steps
  std::uint64_t seed = 1;
  // Poisson sources (presynaptic only), each connected to every neuron with probability poisson_probability
  std::int64_t poisson_sources = 0;
  double poisson_probability = 0.0;
  WeightSpec w_poisson;                // acts on the excitatory receptor

  std::int64_t presynaptic() const { return neurons + poisson_sources; }
};

// Checks a spec before anything is allocated (throws std::invalid_argument naming the key).
void check_network_spec(const NetworkSpec& s);

// Expected synapse count (exact for fixed_in_degree, all_to_all and none), for plans and memory estimates.
double expected_synapses(const NetworkSpec& s);

// The populations "exc" and "inh" of a spec (contiguous, in index order; an empty one is left out).
std::vector<Population> populations_of(const NetworkSpec& s);

}  // namespace kbrain::spiking
