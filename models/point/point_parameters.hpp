#pragma once
// Point-neuron models and their named parameter sets (docs/models/point-neurons.md). Units: mV, ms, nS, pF, pA.
// Plain data: copied by value into the kernels.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace kbrain::point {

// CortexHh: Wang 2012 cortical HH network (models/cortex_hh/, docs/models/cortex-hh.md).
enum class NeuronModel : int { Lif = 0, Izhikevich = 1, HhTraub = 2, CortexHh = 3 };
// How the state advances one step (names as in Brian2):
//  Euler             forward Euler of every variable
//  ExponentialEuler  each variable exact for the others frozen at the step start (Brian2 'exponential_euler')
//  Exact             exact solution of a linear system (LIF with current synapses or none; Brian2 'exact')
//  Rk4               classical Runge-Kutta of the whole system
//  NetM              Izhikevich 2003 net.m: two half steps of v, then u with the new v
enum class Integrator : int { Euler = 0, ExponentialEuler = 1, Exact = 2, Rk4 = 3, NetM = 4 };
// Conductance: ge/gi in nS with reversal potentials. Current: ge/gi in mV, dv/dt += (ge+gi)/tau_m (CUBA).
// Delta: the step's arrivals are added to the input current for that step only (Izhikevich net.m).
enum class SynapseKind : int { ConductanceExp = 0, ConductanceAlpha = 1, CurrentExp = 2, Delta = 3 };

struct PointParameters {
  NeuronModel model = NeuronModel::Lif;
  Integrator integrator = Integrator::Euler;
  SynapseKind synapse = SynapseKind::ConductanceExp;
  double dt = 0.1;  // ms
  // membrane
  double c_m = 200.0, g_l = 10.0, e_l = -60.0;   // pF, nS, mV
  double v_threshold = -50.0, v_reset = -60.0;    // mV; spike when v > v_threshold (Izhikevich: v >= 30)
  double refractory_ms = 5.0;                     // LIF: v clamped; HH: blocks detection only
  bool threshold_inclusive = false;               // LIF: spike when v >= v_threshold (NEST) instead of v > (Brian2)
  bool refractory_nest = false;                   // LIF: v clamped for round(t_ref/dt) steps after the spike step
                                                  // (NEST), not from the spike step on (Brian2): one step more
  // synapses
  double tau_e = 5.0, tau_i = 10.0;               // ms
  double e_e = 0.0, e_i = -80.0;                  // mV (conductance synapses)
  // Hodgkin-Huxley (Traub-Miles)
  double g_na = 20000.0, g_kd = 6000.0, g_m = 0.0;  // nS
  double e_na = 50.0, e_k = -90.0, v_t = -63.0;     // mV
  // Izhikevich 2003: a, b, c, d are per neuron (drawn at build time from r ~ U(0,1)); a value here (not NaN)
  // overrides it for every neuron
  double izh_a = std::nan(""), izh_b = std::nan(""), izh_c = std::nan(""), izh_d = std::nan("");
  // Wang 2012 cortical HH (model = CortexHh; units mS/cm^2, uF/cm^2, uA/cm^2, mV, ms). g_l, g_kd, g_m above are the
  // pyramidal cells' (neurons below `excitatory`), these the interneurons'.
  double g_l_inh = 0.15, g_kd_inh = 10.0, g_m_inh = 0.0;
  int gating = 0;                    // cortex::Gating: 0 traub_miles, 1 wang2012
  double network_dt = 0.0;           // ms; > dt: EAI (input and spike exchange once per network step)
  bool lut = false;                  // gating functions from tables over [lut_v_min, lut_v_max] every lut_dv
  double lut_v_min = -100.0, lut_v_max = 60.0, lut_dv = 0.05;
  bool tpm = false;                  // telescopic projective integration of inactive neurons (v < tpm_v)
  int tpm_k = 3, tpm_m = 6;
  double tpm_v = -60.0;
  double delay_min = 2.0, delay_max = 4.0;           // ms: per synapse, a whole number of ms drawn uniformly
  double input_start = 0.0, input_stop = 1e30;       // ms: window of the constant [[input]] currents
  std::int64_t refractory_steps() const;
  // Neuron sub-steps per network step (1 unless EAI).
  std::int64_t substeps() const {
    return network_dt > dt ? static_cast<std::int64_t>(std::llround(network_dt / dt)) : 1;
  }
  double exchange_dt() const { return dt * double(substeps()); }
  int lut_rows() const { return static_cast<int>(std::llround((lut_v_max - lut_v_min) / lut_dv)) + 1; }
  int receptors() const { return synapse == SynapseKind::Delta ? 1 : 2; }
};

// Initial state per population and input drive, as the parameter set prescribes.
struct InitialSpec {
  std::string v_kind = "normal";  // normal (v_mean + v_sd N) | uniform [v_low, v_high) | constant v_mean
  double v_mean = -60.0, v_sd = 0.0, v_low = 0.0, v_high = 0.0;
  double ge_mean = 0.0, ge_sd = 0.0, gi_mean = 0.0, gi_sd = 0.0;  // normal, model units
};

struct NamedSet {
  PointParameters params;
  InitialSpec initial;
  double w_exc = 0, w_inh = 0;             // synaptic weights (model units)
  std::string w_kind = "constant";          // constant | izhikevich2003 (exc U[0,0.5), inh -U[0,1))
  double noise_exc = 0, noise_inh = 0;      // thalamic noise sd per step (Izhikevich 2003: 5, 2)
  bool self_connections = false;
};

// "coba" | "cuba" | "cobahh" | "izhikevich2003" | "lif" (plain LIF of COBA membrane, no synapses) | "pd14" (NEST's
// iaf_psc_exp as Potjans & Diesmann 2014 use it; its network comes from [[population]] / [[projection]] tables).
NamedSet point_parameter_set(const std::string& name);
const std::vector<std::string>& point_parameter_set_names();

const char* to_string(Integrator i);
const char* to_string(NeuronModel m);

}  // namespace kbrain::point
