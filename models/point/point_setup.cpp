#include "models/point/point_setup.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "spiking/counter_draws.hpp"
#include "spiking/network_rules.hpp"

namespace kbrain::point {

using spiking::draw_normal_host;
using spiking::draw_uniform;
using spiking::Purpose;

PointSetup make_point_setup(const PointParameters& params, const InitialSpec& init, const spiking::NetworkSpec& ns,
                            const DriveSpec& drive) {
  PointSetup s;
  s.params = params;
  s.seed = ns.seed;
  spiking::check_network_spec(ns);
  s.network = ns;
  s.populations = spiking::populations_of(ns);
  s.delays = spiking::constant_delay_of(ns, params.dt);
  if (params.model == NeuronModel::CortexHh) {
    // Wang 2012: per-synapse axonal delay, a whole number of ms uniform in [delay_min, delay_max], keyed on
    // (seed, pre, post), arriving exactly D after the spike's network step (spiking::DelayRule::whole_ms).
    if (params.delay_min < params.exchange_dt() - 1e-9)
      throw std::invalid_argument("cortex_hh: delay_min must be at least one network step");
    s.delays = spiking::DelayRule::whole_ms(params.delay_min, params.delay_max, params.exchange_dt());
    if (ns.poisson_sources > 0) throw std::invalid_argument("cortex_hh: Poisson sources are not supported");
  }
  // Checked here, before any output exists, rather than when the run's ring buffer is sized.
  if (s.delays.bound() > 32767)
    throw std::invalid_argument("synaptic delay of " + std::to_string(s.delays.bound()) +
                                " steps: at most 32767 steps fit the delivery ring");
  const std::int64_t n = ns.neurons;
  s.initial.assign(NUM_POINT_VARS, {});
  auto& v = s.initial[V];
  v.resize(n);
  for (std::int64_t i = 0; i < n; ++i) {
    if (init.v_kind == "uniform")
      v[i] = init.v_low + (init.v_high - init.v_low) * draw_uniform(ns.seed, Purpose::Initial, i, 0);
    else if (init.v_kind == "normal")
      v[i] = init.v_mean + init.v_sd * draw_normal_host(ns.seed, Purpose::Initial, i, 0);
    else
      v[i] = init.v_mean;
  }
  if (params.synapse != SynapseKind::Delta) {
    auto& ge = s.initial[GE];
    auto& gi = s.initial[GI];
    ge.resize(n);
    gi.resize(n);
    for (std::int64_t i = 0; i < n; ++i) {
      ge[i] = init.ge_sd != 0 ? init.ge_mean + init.ge_sd * draw_normal_host(ns.seed, Purpose::Initial, i, 1)
                              : init.ge_mean;
      gi[i] = init.gi_sd != 0 ? init.gi_mean + init.gi_sd * draw_normal_host(ns.seed, Purpose::Initial, i, 2)
                              : init.gi_mean;
    }
  }
  if (params.model == NeuronModel::Izhikevich) {
    // Izhikevich 2003: exc a=0.02, b=0.2, c=-65+15r^2, d=8-6r^2; inh a=0.02+0.08r, b=0.25-0.05r, c=-65, d=2.
    s.a.resize(n); s.b.resize(n); s.c.resize(n); s.d.resize(n);
    auto& u = s.initial[U];
    u.resize(n);
    for (std::int64_t i = 0; i < n; ++i) {
      const double r = draw_uniform(ns.seed, Purpose::CellParameter, i, 0);
      if (i < ns.excitatory) {
        s.a[i] = 0.02; s.b[i] = 0.2; s.c[i] = -65 + 15 * r * r; s.d[i] = 8 - 6 * r * r;
      } else {
        s.a[i] = 0.02 + 0.08 * r; s.b[i] = 0.25 - 0.05 * r; s.c[i] = -65; s.d[i] = 2;
      }
      if (!std::isnan(params.izh_a)) s.a[i] = params.izh_a;
      if (!std::isnan(params.izh_b)) s.b[i] = params.izh_b;
      if (!std::isnan(params.izh_c)) s.c[i] = params.izh_c;
      if (!std::isnan(params.izh_d)) s.d[i] = params.izh_d;
      u[i] = s.b[i] * v[i];
    }
  }
  // HH gates start at 0 (Brian2's default for unset variables, as in the COBAHH example).
  s.i_ext.assign(n, 0.0);
  s.noise_sd.assign(n, 0.0);
  for (const auto& c : drive.currents) {
    const std::int64_t last = c.last < 0 ? n : std::min(c.last, n);
    if (c.first < 0 || c.first > last) throw std::invalid_argument("drive: neuron range out of order");
    for (std::int64_t i = c.first; i < last; ++i) {
      s.i_ext[i] += c.mean;
      s.noise_sd[i] = c.sd;  // the last range naming a neuron sets its noise
    }
  }
  s.poisson_rate_hz = drive.poisson_rate_hz;
  return s;
}

spiking::NetworkSpec named_network(const NamedSet& set, std::int64_t neurons, std::uint64_t seed) {
  spiking::NetworkSpec ns;
  ns.neurons = neurons;
  ns.excitatory = neurons * 4 / 5;
  ns.seed = seed;
  ns.self_connections = set.self_connections;
  if (set.w_kind == "izhikevich2003") {
    ns.connectivity = "all_to_all";
    ns.w_exc = {"uniform", 0, 0.0, 0.5};
    ns.w_inh = {"uniform", 0, 0.0, -1.0};  // -U[0, 1)
  } else {
    ns.connectivity = set.w_exc == 0 && set.w_inh == 0 ? "none" : "fixed_probability";
    ns.probability = 0.02;
    ns.w_exc.value = set.w_exc;
    ns.w_inh.value = set.w_inh;
  }
  ns.inhibitory_receptor = set.params.synapse == SynapseKind::Delta ? 0 : 1;
  return ns;
}

DriveSpec named_drive(const NamedSet& set, std::int64_t neurons) {
  DriveSpec d;
  if (set.noise_exc != 0 || set.noise_inh != 0) {
    const std::int64_t ne = neurons * 4 / 5;
    d.currents.push_back({0, ne, 0.0, set.noise_exc});
    d.currents.push_back({ne, neurons, 0.0, set.noise_inh});
  }
  return d;
}

}  // namespace kbrain::point
