#include "spiking/network_spec.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace kbrain::spiking {

void check_network_spec(const NetworkSpec& s) {
  if (s.neurons < 1 || s.neurons + s.poisson_sources > std::numeric_limits<std::int32_t>::max())
    throw std::invalid_argument("network: neurons + Poisson sources must be in [1, 2^31-1]");
  if (s.excitatory < 0 || s.excitatory > s.neurons)
    throw std::invalid_argument("network: excitatory must be in [0, neurons]");
  if (s.connectivity != "fixed_probability" && s.connectivity != "fixed_in_degree" &&
      s.connectivity != "all_to_all" && s.connectivity != "none")
    throw std::invalid_argument("network: unknown connectivity '" + s.connectivity + "'");
  if (s.connectivity == "fixed_in_degree" &&
      (s.in_degree < 0 || s.in_degree > s.neurons - (s.self_connections ? 0 : 1)))
    throw std::invalid_argument("network: in_degree is larger than the number of possible presynaptic neurons");
  if (!(s.probability >= 0 && s.probability <= 1) || !(s.poisson_probability >= 0 && s.poisson_probability <= 1))
    throw std::invalid_argument("network: probabilities must be in [0, 1]");
  if (s.poisson_sources < 0) throw std::invalid_argument("network: Poisson sources must be >= 0");
  if (!(s.delay_ms >= 0)) throw std::invalid_argument("network: delay must be >= 0");
}

double expected_synapses(const NetworkSpec& s) {
  const double n = double(s.neurons), candidates = n - (s.self_connections ? 0.0 : 1.0);
  double neurons = 0;
  if (s.connectivity == "fixed_in_degree") neurons = n * double(s.in_degree);
  else if (s.connectivity == "all_to_all") neurons = n * candidates;
  else if (s.connectivity == "fixed_probability") neurons = n * candidates * s.probability;
  return neurons + double(s.poisson_sources) * n * s.poisson_probability;
}

std::vector<Population> populations_of(const NetworkSpec& s) {
  std::vector<Population> p;
  if (s.excitatory > 0) p.push_back({"exc", 0, s.excitatory, 0});
  if (s.neurons > s.excitatory) p.push_back({"inh", s.excitatory, s.neurons - s.excitatory, s.inhibitory_receptor});
  return p;
}

}  // namespace kbrain::spiking
