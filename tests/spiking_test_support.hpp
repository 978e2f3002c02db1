#pragma once
// Helpers for the spiking tests: run a PointSetup for some steps on one backend and collect spikes and state.
#include <cstdint>
#include <utility>
#include <vector>

#include "models/point/point_network.hpp"
#include "models/point/point_setup.hpp"

namespace kbrain::test {

struct SpikingRun {
  std::vector<std::pair<std::int64_t, std::int64_t>> spikes;  // (updates done, neuron)
  std::vector<double> v;                                      // final membrane potentials
  std::vector<double> trace;                                  // v of neuron 0 after every step
};

template <class Backend, class Real>
SpikingRun run_point(const point::PointSetup& setup, std::int64_t steps, bool trace_neuron0 = false) {
  point::PointNetworkSimulation<Backend, Real> sim(setup);
  sim.enable_spike_log(1 << 16);
  SpikingRun out;
  for (std::int64_t n = 0; n < steps; ++n) {
    sim.step();
    if (trace_neuron0) out.trace.push_back(sim.variable(point::V)[0]);
  }
  out.spikes = sim.drain_spikes();
  out.v = sim.variable(point::V);
  return out;
}

// A single unconnected neuron of a named set under constant current `i_ext` (model units) with `integrator`.
inline point::PointSetup single_neuron(const std::string& set_name, double i_ext, point::Integrator integrator,
                                       double dt) {
  point::NamedSet set = point::point_parameter_set(set_name);
  set.params.integrator = integrator;
  set.params.dt = dt;
  spiking::NetworkSpec ns = point::named_network(set, 1, 1);
  ns.connectivity = "none";
  ns.excitatory = 1;
  point::DriveSpec drive;
  drive.currents.push_back({0, 1, i_ext, 0.0});
  point::InitialSpec init = set.initial;
  init.v_kind = "constant";
  init.ge_sd = init.gi_sd = 0;
  init.ge_mean = init.gi_mean = 0;
  return point::make_point_setup(set.params, init, ns, drive);
}

}  // namespace kbrain::test
