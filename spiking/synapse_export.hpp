#pragma once
// `[record] synapses = true`: a run's synapses as NumPy arrays in its output folder, one value per synapse in CSR
// order (by presynaptic index, then as generated), so that another simulator can build the identical network:
//   synapses_sources.npy    int32    presynaptic index (neurons 0..N-1, then Poisson sources N..)
//   synapses_targets.npy    int32    postsynaptic neuron
//   synapses_weights.npy    float64  weight in model units as simulated (rounded to the receptor's fixed-point grid)
//   synapses_delays.npy     int32    delay in steps (0: effect in the next update)
//   synapses_receptors.npy  uint8    receptor (0: excitatory / the input current, 1: inhibitory)
// Host-only apart from the network's generation (spiking/host_network.hpp).
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "core/recorders/npy_file.hpp"
#include "spiking/device_synapses.hpp"
#include "spiking/synapse_network.hpp"

namespace kbrain::spiking {

inline const char* const kSynapseArrayNames[] = {"synapses_sources.npy", "synapses_targets.npy",
                                                 "synapses_weights.npy", "synapses_delays.npy",
                                                 "synapses_receptors.npy"};

// Writes the five arrays of `net` into `dir`; returns the synapse count.
inline std::int64_t write_synapse_arrays(const std::filesystem::path& dir, const SynapseNetwork& net) {
  const auto count = static_cast<std::size_t>(net.synapses());
  double scale[kMaxReceptors];
  DeviceSynapses<Kokkos::HostSpace>::receptor_scales(net, scale);
  std::vector<std::int32_t> sources(count);
  for (std::int64_t p = 0; p < net.presynaptic(); ++p)
    for (std::int64_t k = net.offsets[static_cast<std::size_t>(p)]; k < net.offsets[static_cast<std::size_t>(p) + 1]; ++k)
      sources[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(p);
  std::vector<double> weights(count);
  for (std::size_t k = 0; k < count; ++k) {
    const double s = scale[net.receptor[k]];
    weights[k] = double(std::llround(net.weight[k] * s)) / s;  // the value the backends deliver
  }
  write_npy(dir / kSynapseArrayNames[0], sources);
  write_npy(dir / kSynapseArrayNames[1], net.target);
  write_npy(dir / kSynapseArrayNames[2], weights);
  write_npy(dir / kSynapseArrayNames[3], net.delay);
  write_npy(dir / kSynapseArrayNames[4], net.receptor);
  return static_cast<std::int64_t>(count);
}

// The same arrays from synapses as a backend holds them (fixed-point weights with their scales); host memory.
inline std::int64_t write_synapse_arrays(const std::filesystem::path& dir, const DeviceSynapses<Kokkos::HostSpace>& d) {
  const auto count = static_cast<std::size_t>(d.count);
  std::vector<std::int32_t> sources(count), targets(count), delays(count);
  std::vector<double> weights(count);
  std::vector<std::uint8_t> receptors(count);
  for (std::size_t p = 0; p + 1 < d.offsets.extent(0); ++p)
    for (std::int64_t k = d.offsets(p); k < d.offsets(p + 1); ++k) {
      const auto j = static_cast<std::size_t>(k);
      const int r = d.delay_receptor(k) & 1;
      sources[j] = static_cast<std::int32_t>(p);
      targets[j] = d.target(k);
      weights[j] = double(d.weight(k)) / d.scale[r];
      delays[j] = d.delay_receptor(k) >> 1;
      receptors[j] = static_cast<std::uint8_t>(r);
    }
  write_npy(dir / kSynapseArrayNames[0], sources);
  write_npy(dir / kSynapseArrayNames[1], targets);
  write_npy(dir / kSynapseArrayNames[2], weights);
  write_npy(dir / kSynapseArrayNames[3], delays);
  write_npy(dir / kSynapseArrayNames[4], receptors);
  return static_cast<std::int64_t>(count);
}

}  // namespace kbrain::spiking
