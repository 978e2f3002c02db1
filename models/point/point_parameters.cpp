#include "models/point/point_parameters.hpp"

#include <cmath>
#include <stdexcept>

namespace kbrain::point {

std::int64_t PointParameters::refractory_steps() const {
  // Brian2: not_refractory = timestep(t - lastspike) >= timestep(refractory)
  // NEST: the spike step sets the count to round(t_ref/dt), and the membrane integrates again once it is 0, so
  // round(t_ref/dt) steps after the spike step are clamped: not refractory from round(t_ref/dt) + 1 steps on.
  return static_cast<std::int64_t>(std::floor(refractory_ms / dt + 1e-3)) + (refractory_nest ? 1 : 0);
}

const std::vector<std::string>& point_parameter_set_names() {
  static const std::vector<std::string> names = {"coba", "cuba", "cobahh", "izhikevich2003", "lif", "wang2012", "pd14"};
  return names;
}

NamedSet point_parameter_set(const std::string& name) {
  NamedSet s;
  PointParameters& p = s.params;
  // Brette et al. 2007 membrane: 20000 um^2, 1 uF/cm^2, 5e-5 S/cm^2 -> 200 pF, 10 nS (tau_m 20 ms).
  if (name == "coba" || name == "lif") {
    p.model = NeuronModel::Lif;
    p.integrator = Integrator::Euler;
    p.synapse = SynapseKind::ConductanceExp;
    p.e_l = -60; p.v_threshold = -50; p.v_reset = -60; p.refractory_ms = 5;
    s.initial = {"normal", -65.0, 5.0, 0, 0, 40.0, 15.0, 200.0, 120.0};
    s.w_exc = 6.0;
    s.w_inh = 67.0;
  } else if (name == "cuba") {
    p.model = NeuronModel::Lif;
    p.integrator = Integrator::Exact;
    p.synapse = SynapseKind::CurrentExp;
    p.e_l = -49; p.v_threshold = -50; p.v_reset = -60; p.refractory_ms = 5;
    s.initial = {"uniform", 0, 0, -60.0, -50.0, 0, 0, 0, 0};
    s.w_exc = 1.62;
    s.w_inh = -9.0;
  } else if (name == "pd14") {
    // NEST's iaf_psc_exp with Potjans & Diesmann 2014's parameters (docs/models/pd14.md): C_m 250 pF, tau_m 10 ms
    // (g_L 25 nS), exact integration of current synapses (weights in mV = R_m times the pA of NEST's weight), tau_syn
    // 0.5 ms, inclusive threshold, NEST's refractory count. Initial values and drive come from the populations.
    p.model = NeuronModel::Lif;
    p.integrator = Integrator::Exact;
    p.synapse = SynapseKind::CurrentExp;
    p.c_m = 250; p.g_l = 25;
    p.e_l = -65; p.v_threshold = -50; p.v_reset = -65; p.refractory_ms = 2;
    p.tau_e = 0.5; p.tau_i = 0.5;
    p.threshold_inclusive = true;
    p.refractory_nest = true;
    s.initial = {"constant", -65.0, 0, 0, 0, 0, 0, 0, 0};
  } else if (name == "cobahh") {
    p.model = NeuronModel::HhTraub;
    p.integrator = Integrator::ExponentialEuler;
    p.synapse = SynapseKind::ConductanceExp;
    p.e_l = -60; p.v_threshold = -20; p.refractory_ms = 3;
    s.initial = {"normal", -65.0, 5.0, 0, 0, 40.0, 15.0, 200.0, 120.0};
    s.w_exc = 6.0;
    s.w_inh = 67.0;
  } else if (name == "izhikevich2003") {
    p.model = NeuronModel::Izhikevich;
    p.integrator = Integrator::NetM;
    p.synapse = SynapseKind::Delta;
    p.dt = 1.0;
    p.v_threshold = 30; p.refractory_ms = 0;
    s.initial = {"constant", -65.0, 0, 0, 0, 0, 0, 0, 0};
    s.w_kind = "izhikevich2003";
    s.noise_exc = 5.0;
    s.noise_inh = 2.0;
    s.self_connections = true;
  } else if (name == "wang2012") {
    // Wang 2012 Table I with the Destexhe/Pospischil 2008 cells (point-neurons.md §4) for what the study leaves out;
    // synapses and spike threshold from the COBAHH family; weights, delays and drive: docs/models/cortex-hh.md.
    p.model = NeuronModel::CortexHh;
    p.integrator = Integrator::Euler;
    p.synapse = SynapseKind::ConductanceAlpha;
    p.dt = 0.02;
    p.c_m = 1.0;
    p.g_l = 0.1; p.g_na = 50.0; p.g_kd = 5.0; p.g_m = 0.07;
    p.g_l_inh = 0.15; p.g_kd_inh = 10.0; p.g_m_inh = 0.0;
    p.e_l = -70.0; p.e_na = 50.0; p.e_k = -100.0; p.v_t = -55.0;
    p.e_e = 0.0; p.e_i = -80.0; p.tau_e = 5.0; p.tau_i = 10.0;
    p.v_threshold = -20.0; p.refractory_ms = 0.0;
    s.initial = {"normal", -70.0, 2.0, 0, 0, 0, 0, 0, 0};
    s.w_exc = 0.01;
    s.w_inh = 0.1;
  } else {
    throw std::invalid_argument("unknown point-neuron parameter set '" + name + "'");
  }
  if (name == "lif") s.w_exc = s.w_inh = 0;
  return s;
}

const char* to_string(Integrator i) {
  switch (i) {
    case Integrator::Euler: return "euler";
    case Integrator::ExponentialEuler: return "exponential_euler";
    case Integrator::Exact: return "exact";
    case Integrator::Rk4: return "rk4";
    case Integrator::NetM: return "net_m";
  }
  return "?";
}

const char* to_string(NeuronModel m) {
  switch (m) {
    case NeuronModel::Lif: return "lif";
    case NeuronModel::Izhikevich: return "izhikevich";
    case NeuronModel::HhTraub: return "hh";
    case NeuronModel::CortexHh: return "cortex_hh";
  }
  return "?";
}

}  // namespace kbrain::point
