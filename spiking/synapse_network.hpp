#pragma once
// A spiking network on the host: neurons in populations, Poisson sources, and every synapse in CSR by presynaptic
// index (outgoing connections). Presynaptic indices 0..neurons-1 are neurons, neurons..neurons+sources-1 are Poisson
// sources. Built deterministically on the host (spiking/host_network.hpp) 
// for tests and tools; a run generates its network on its own backend (spiking/generated_synapses.hpp).
#include <cstdint>
#include <string>
#include <vector>

namespace kbrain::spiking {

// Receptor a synapse acts on. Conductance/current models: 0 = excitatory (ge), 1 = inhibitory (gi);
// delta-current models (Izhikevich): 0 = the step's input current.
constexpr int kMaxReceptors = 2;

struct Population {
  std::string name;          // "exc", "inh"
  std::int64_t first = 0;    // first neuron index
  std::int64_t size = 0;
  int receptor = 0;          // receptor its outgoing synapses act on
};

struct SynapseNetwork {
  std::int64_t neurons = 0;
  std::int64_t sources = 0;                // Poisson sources (presynaptic only)
  std::vector<Population> populations;     // contiguous, in index order, covering 0..neurons-1
  // Outgoing CSR over presynaptic index p in [0, neurons + sources): synapses offsets[p] .. offsets[p+1]-1.
  std::vector<std::int64_t> offsets;
  std::vector<std::int32_t> target;
  std::vector<double> weight;              // model units: nS (conductance), mV (current), input units (delta)
  std::vector<std::int32_t> delay;         // steps, >= 0 (0: effect visible at the next step, as Brian2's delay 0)
  std::vector<std::uint8_t> receptor;

  std::int64_t presynaptic() const { return neurons + sources; }
  std::int64_t synapses() const { return static_cast<std::int64_t>(target.size()); }
  std::int32_t max_delay() const {
    std::int32_t m = 0;
    for (auto d : delay) m = d > m ? d : m;
    return m;
  }
  // Population index of neuron i (-1 outside).
  int population_of(std::int64_t i) const {
    for (std::size_t k = 0; k < populations.size(); ++k)
      if (i >= populations[k].first && i < populations[k].first + populations[k].size) return static_cast<int>(k);
    return -1;
  }
};

}  // namespace kbrain::spiking
