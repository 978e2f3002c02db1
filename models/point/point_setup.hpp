#pragma once
// Everything a point-neuron network run needs, prepared on the host: parameters, the synapse network, and the
// per-neuron initial values, cell parameters and input drive (all from counter-based draws keyed on the seed).
#include <cstdint>
#include <string>
#include <vector>

#include "models/point/point_parameters.hpp"
#include "models/point/point_vars.hpp"
#include "spiking/network_builders.hpp"
#include "spiking/synapse_network.hpp"

namespace kbrain::point {

// External drive. Currents in pA (Izhikevich: input units); ranges are neuron index ranges [first, last).
struct DriveSpec {
  struct Current {
    std::int64_t first = 0, last = -1;  // last < 0: to the end
    double mean = 0, sd = 0;             // constant mean + sd * N(0,1) drawn afresh each step (thalamic noise)
  };
  std::vector<Current> currents;
  double poisson_rate_hz = 0;            // rate of every Poisson source (network spec sets their number/wiring)
};

struct PointSetup {
  PointParameters params;
  spiking::SynapseNetwork network;
  std::vector<std::vector<double>> initial;  // per PointVar (empty: zero)
  std::vector<double> a, b, c, d;            // Izhikevich
  std::vector<double> i_ext, noise_sd;
  std::uint64_t seed = 1;
  double poisson_rate_hz = 0;
  bool dense_synapses = false;               // neuron -> neuron synapses as a dense matrix on the device
};

// Initial values, Izhikevich cell parameters (r ~ U(0,1) keyed on (seed, neuron)) and the drive.
PointSetup make_point_setup(const PointParameters& params, const InitialSpec& initial, const spiking::NetworkSpec& net,
                            const DriveSpec& drive);

// The network of a named set (Brette 2007: 80/20, p = 0.02, no self connections; Izhikevich 2003: 80/20 dense, self
// included, uniform weights) scaled to `neurons`, and its drive (Izhikevich thalamic noise 5 / 2).
spiking::NetworkSpec named_network(const NamedSet& set, std::int64_t neurons, std::uint64_t seed);
DriveSpec named_drive(const NamedSet& set, std::int64_t neurons);

}  // namespace kbrain::point
