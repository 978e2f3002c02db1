#include "models/point/point_schema.hpp"

#include <limits>
#include <stdexcept>

#include "models/point/point_vars.hpp"

namespace kbrain::point {

namespace {

using P = PointParameters;
using T = ParameterTable<P>;

// Names shared by the conductance-based kinds; each kind's table lists what its kernels read.
#define KBRAIN_LIF_ENTRIES                                                                          \
  T::real("c_m", &P::c_m, "pF", positive(), "membrane capacitance"),                               \
      T::real("g_l", &P::g_l, "nS", non_negative(), "leak conductance"),                           \
      T::real("e_l", &P::e_l, "mV", any_value(), "leak reversal potential"),                       \
      T::real("v_threshold", &P::v_threshold, "mV", any_value(), "spike threshold"),               \
      T::real("v_reset", &P::v_reset, "mV", any_value(), "reset potential"),                       \
      T::real("refractory", &P::refractory_ms, "ms", non_negative(), "refractory period"),         \
      T::real("tau_e", &P::tau_e, "ms", positive(), "excitatory synaptic time constant"),          \
      T::real("tau_i", &P::tau_i, "ms", positive(), "inhibitory synaptic time constant"),          \
      T::real("e_e", &P::e_e, "mV", any_value(), "excitatory reversal potential"),                 \
      T::real("e_i", &P::e_i, "mV", any_value(), "inhibitory reversal potential")
#define KBRAIN_HH_ENTRIES                                                                           \
  T::real("g_na", &P::g_na, "nS", non_negative(), "sodium conductance"),                           \
      T::real("g_kd", &P::g_kd, "nS", non_negative(), "delayed-rectifier K conductance"),          \
      T::real("g_m", &P::g_m, "nS", non_negative(), "M-current conductance"),                      \
      T::real("e_na", &P::e_na, "mV", any_value(), "sodium reversal potential"),                   \
      T::real("e_k", &P::e_k, "mV", any_value(), "potassium reversal potential"),                  \
      T::real("v_t", &P::v_t, "mV", any_value(), "Traub-Miles threshold offset")

const T& lif_table() {
  static const T t{KBRAIN_LIF_ENTRIES};
  return t;
}
const T& hh_table() {
  static const T t{KBRAIN_LIF_ENTRIES, KBRAIN_HH_ENTRIES};
  return t;
}
const T& izhikevich_table() {
  static const T t{
      T::real("a", &P::izh_a, "1/ms", any_value(), "recovery time scale (default: drawn per neuron)"),
      T::real("b", &P::izh_b, "1", any_value(), "recovery sensitivity (default: drawn per neuron)"),
      T::real("c", &P::izh_c, "mV", any_value(), "reset potential (default: drawn per neuron)"),
      T::real("d", &P::izh_d, "1", any_value(), "recovery increment (default: drawn per neuron)"),
  };
  return t;
}
const T& cortex_table() {
  static const T t{
      KBRAIN_LIF_ENTRIES, KBRAIN_HH_ENTRIES,
      T::real("g_l_inh", &P::g_l_inh, "mS/cm^2", non_negative(), "interneuron leak conductance"),
      T::real("g_kd_inh", &P::g_kd_inh, "mS/cm^2", non_negative(), "interneuron delayed-rectifier K"),
      T::real("g_m_inh", &P::g_m_inh, "mS/cm^2", non_negative(), "interneuron M-current"),
      T::real("network_dt", &P::network_dt, "ms", positive(), "EAI network step (a whole multiple of dt)"),
      T::real("lut_v_min", &P::lut_v_min, "mV", any_value(), "gating table lower end"),
      T::real("lut_v_max", &P::lut_v_max, "mV", any_value(), "gating table upper end"),
      T::real("lut_dv", &P::lut_dv, "mV", positive(), "gating table spacing"),
      T::whole("tpm_k", &P::tpm_k, positive(), "TPM inner steps"),
      T::whole("tpm_m", &P::tpm_m, positive(), "TPM projected steps"),
      T::real("tpm_v", &P::tpm_v, "mV", any_value(), "TPM activity threshold"),
      T::real("delay_min", &P::delay_min, "ms", positive(), "shortest synaptic delay"),
      T::real("delay_max", &P::delay_max, "ms", any_value(), "longest synaptic delay"),
      T::real("input_start", &P::input_start, "ms", any_value(), "start of the constant [[input]] currents"),
      T::real("input_stop", &P::input_stop, "ms", any_value(), "end of the constant [[input]] currents"),
  };
  return t;
}
#undef KBRAIN_LIF_ENTRIES
#undef KBRAIN_HH_ENTRIES

ModelSchema spiking_schema(const std::string& kind, const std::string& summary, std::vector<std::string> sets,
                           std::vector<std::string> integrators, std::vector<std::string> synapses,
                           std::vector<const char*> variables) {
  ModelSchema s;
  s.kind = kind;
  s.summary = summary;
  s.family = "spiking_network";
  s.parameters = point_parameter_table(kind).infos(point_parameter_set(sets.front()).params);
  for (const char* v : variables) {
    const std::string unit = std::string(v) == "v" ? "mV" : "";
    s.variables.push_back({v, unit, plausible_bound_for_unit(unit)});
  }
  s.parameter_sets = std::move(sets);
  s.integrators = std::move(integrators);
  s.synapses = std::move(synapses);
  return s;
}

}  // namespace

const ParameterTable<PointParameters>& point_parameter_table(const std::string& kind) {
  if (kind == "lif") return lif_table();
  if (kind == "hh") return hh_table();
  if (kind == "izhikevich") return izhikevich_table();
  if (kind == "cortex_hh") return cortex_table();
  throw std::invalid_argument("no point-neuron parameter table for model.kind \"" + kind + "\"");
}

ModelSchema point_schema(const std::string& kind) {
  if (kind == "lif")
    return spiking_schema(kind, "leaky integrate-and-fire point neurons (Brette et al. 2007 COBA/CUBA)",
                          {"coba", "cuba", "lif", "pd14"}, {"euler", "exponential_euler", "exact", "rk4"},
                          {"conductance_exp", "conductance_alpha", "current_exp"}, {"v", "ge", "gi", "xe", "xi"});
  if (kind == "hh")
    return spiking_schema(kind, "Hodgkin-Huxley point neurons, Traub-Miles (Brette et al. 2007 COBAHH)", {"cobahh"},
                          {"exponential_euler", "euler"}, {"conductance_exp", "conductance_alpha"},
                          {"v", "ge", "gi", "xe", "xi", "m", "h", "n", "p"});
  if (kind == "izhikevich")
    return spiking_schema(kind, "Izhikevich 2003 point neurons (net.m)", {"izhikevich2003"}, {"net_m", "euler"},
                          {"delta"}, {"v", "u"});
  throw std::invalid_argument("no point-neuron schema for model.kind \"" + kind + "\"");
}

ModelSchema cortex_hh_schema() {
  ModelSchema s = spiking_schema("cortex_hh", "Wang 2012 cortical HH network (EAI, gating tables, TPM)", {"wang2012"},
                                 {"forward_euler", "exponential_euler"}, {"conductance_alpha"},
                                 {"v", "ge", "gi", "xe", "xi", "m", "h", "n", "p"});
  return s;
}

}  // namespace kbrain::point
