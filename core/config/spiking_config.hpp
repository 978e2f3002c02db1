#pragma once
// The spiking-network part of an experiment file (model.kind = lif | izhikevich | hh | cortex_hh): [model] choices,
// [network] (random E/I networks), [[input]] drives, [record] and [compare]. Parsed by spiking_config.cpp;
// schema in docs/experiment-schema.md ("Spiking networks"). Host-only plain data.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/config/projection_config.hpp"

namespace kbrain {


struct SpikingWeightConfig {
  std::string kind = "constant";  // constant | uniform [low, high)
  double value = 0, low = 0, high = 0;
};

struct SpikingInputConfig {
  std::string kind;                    // current | thalamic | poisson
  std::int64_t first = 0, last = -1;   // neuron range [first, last); last = -1: to the end
  double mean = 0;                     // current: constant current (pA; Izhikevich: input units)
  double sd = 0;                       // thalamic: sd of a fresh N(0,1) current each step
  std::int64_t sources = 0;            // poisson
  double rate_hz = 0, probability = 0, weight = 0;
};

struct SpikingConfig {
  std::string parameter_set;           // coba | cuba | cobahh | izhikevich2003 | lif
  std::string integrator;              // "" => the set's
  std::string synapse;                 // "" => the set's
  // cortex_hh numerical methods (docs/models/cortex-hh.md)
  std::string gating;                  // "" => traub_miles
  std::optional<bool> eai, lut, tpm;
  std::vector<std::pair<std::string, double>> parameter_overrides;  // [model.parameters]
  std::optional<double> initial_v;     // [model] initial_v: every neuron starts at v, synapses at 0
  std::string threshold;               // LIF: "" / "exclusive" (v > v_threshold) | "inclusive" (v >= v_threshold)
  std::string refractory_rule;         // LIF: "" / "brian2" | "nest" (clamped for round(t_ref/dt) steps after the spike step)
  bool dt_given = false;               // [simulation] dt written (else the set's dt)
  // [network]
  std::string connectivity;            // "" => the set's (fixed_probability; izhikevich2003: all_to_all)
  std::int64_t neurons = 4000;
  std::int64_t excitatory = -1;        // -1 => 80 % of neurons
  std::optional<double> probability;
  std::int64_t in_degree = 0;
  std::optional<bool> self_connections;
  std::optional<SpikingWeightConfig> w_exc, w_inh;
  double delay_ms = 0;
  std::uint64_t seed = 1;
  std::string storage = "csr";         // csr | dense (neuron -> neuron synapses as a weight matrix on the device)
  // [[population]], [[projection]]: the network as populations and projections (replaces the E/I shape)
  std::optional<PopulationNetworkConfig> population_network;
  // [[input]]
  std::vector<SpikingInputConfig> inputs;
  // [record]
  bool record_spikes = true;
  std::vector<std::string> variables = {"v"};
  std::vector<std::int64_t> record_neurons;  // empty => no trace
  std::int64_t every = 1;
  bool csv = true, binary = false;
  bool sonata = false;  // spikes also as a SONATA file (spikes.h5)
  bool synapses = false;  // the generated synapses as NumPy arrays (synapses_*.npy)
};

}  // namespace kbrain
