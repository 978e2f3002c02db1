#pragma once
// A [[population]] / [[projection]] network (core/config/projection_config.hpp) made ready to run: scaled by
// network.n_scaling / k_scaling as the PD14 reference code scales (sizes and synapse counts rounded half to even,
// weights divided by sqrt(k_scaling), the lost mean input given back as a constant current), turned into the
// generator's spec (spiking/projection_spec.hpp), and the populations' initial values, currents and Poisson drives
// written into the setup's per-neuron arrays.
#include <string>

#include "core/config/projection_config.hpp"
#include "models/point/point_setup.hpp"
#include "spiking/projection_spec.hpp"

namespace kbrain::point {

// The scaled network; throws std::invalid_argument naming the table (file:line) where a value does not fit.
spiking::ProjectionNetwork scaled_projection_network(const PopulationNetworkConfig& c, const PointParameters& p,
                                                     std::uint64_t seed);

// Per population: initial v, constant current i_e plus the scaling's compensation, the Poisson drive. `setup` has
// been made for the network's neurons with no synapses.
void apply_populations(const PopulationNetworkConfig& c, const spiking::ProjectionNetwork& net, PointSetup& setup);

// The constant current (pA) that replaces the mean input lost by k_scaling < 1, per population (zero at scale 1).
std::vector<double> scaling_compensation(const PopulationNetworkConfig& c, const PointParameters& p);

}  // namespace kbrain::point
