#pragma once
// A generated spiking network as a host SynapseNetwork (weights in model units, before fixed-point rounding): for
// tests, tools and analyses that want every synapse on the host. The rows are generated on the host backend by the
// same code as on the simulating backend (spiking/network_generation.hpp).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "spiking/network_generation.hpp"
#include "spiking/network_rules.hpp"
#include "spiking/synapse_network.hpp"

namespace kbrain::spiking {

template <class Mem>
SynapseNetwork to_host(const SynapseRows<Mem>& rows, const NetworkSpec& spec, const DelayRule& delay) {
  const NetworkRules rules = rules_of(spec, delay);
  SynapseNetwork net;
  net.neurons = spec.neurons;
  net.sources = spec.poisson_sources;
  net.populations = populations_of(spec);
  auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows.offsets);
  auto tgt = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows.target);
  net.offsets.assign(off.data(), off.data() + off.extent(0));
  net.target.assign(tgt.data(), tgt.data() + tgt.extent(0));
  const auto total = static_cast<std::size_t>(net.target.size());
  net.weight.resize(total);
  net.delay.resize(total);
  net.receptor.resize(total);
  for (std::int64_t pre = 0; pre < rules.presynaptic(); ++pre)
    for (std::int64_t k = net.offsets[pre]; k < net.offsets[pre + 1]; ++k) {
      const auto j = static_cast<std::size_t>(k);
      net.weight[j] = rules.weight(pre, net.target[j]);
      net.delay[j] = rules.delay.at(rules.seed, pre, net.target[j]);
      net.receptor[j] = static_cast<std::uint8_t>(rules.receptor(pre));
    }
  return net;
}

// The network of `spec`, generated on the default host backend (Kokkos must be initialised).
inline SynapseNetwork build_network(const NetworkSpec& spec, const DelayRule& delay) {
  return to_host(generate_rows<Kokkos::DefaultHostExecutionSpace>(spec), spec, delay);
}
inline SynapseNetwork build_network(const NetworkSpec& spec, double dt_ms) {
  return build_network(spec, constant_delay_of(spec, dt_ms));
}

}  // namespace kbrain::spiking
