#include "models/adex_costa/adex_schema.hpp"

#include <limits>

namespace kbrain::adex {

const ParameterTable<AdexCostaParams>& adex_parameter_table() {
  using P = AdexCostaParams;
  using T = ParameterTable<P>;
  static const T table{
      T::real("C", &P::C, "pF", positive(), "membrane capacitance"),
      T::real("gL", &P::gL, "nS", positive(), "leak conductance"),
      T::real("EL", &P::EL, "mV", any_value(), "leak reversal potential (and initial V)"),
      T::real("DeltaT", &P::DeltaT, "mV", positive(), "slope factor of the exponential"),
      T::real("VTrest", &P::VTrest, "mV", any_value(), "resting threshold (and initial VT)"),
      T::real("VTmax", &P::VTmax, "mV", any_value(), "threshold after a spike"),
      T::real("tauVT", &P::tauVT, "ms", positive(), "threshold relaxation time"),
      T::real("tauw", &P::tauw, "ms", positive(), "adaptation time constant"),
      T::real("c", &P::c, "nS", any_value(), "subthreshold adaptation"),
      T::real("b", &P::b, "pA", any_value(), "spike-triggered adaptation"),
      T::real("Vr", &P::Vr, "mV", any_value(), "reset potential"),
      T::real("tau_FFp", &P::tau_FFp, "ms", positive(), "presynaptic trace x+"),
      T::real("tau_FBp", &P::tau_FBp, "ms", positive(), "postsynaptic trace y+"),
      T::real("tau_FBn", &P::tau_FBn, "ms", positive(), "postsynaptic trace y-"),
      T::real("tau_r", &P::tau_r, "ms", positive(), "resource recovery D"),
      T::real("tau_u", &P::tau_u, "ms", positive(), "utilisation relaxation F"),
      T::real("s", &P::s, "pA", any_value(), "current scale: I = s A R u at a presynaptic event"),
      T::real("AFBn", &P::AFBn, "1", non_negative(), "LTD amplitude of U (pre)"),
      T::real("AFBp", &P::AFBp, "1", non_negative(), "LTP amplitude of U (pre)"),
      T::real("AFFp", &P::AFFp, "1", non_negative(), "LTP amplitude of A (post)"),
      T::real("etaU", &P::etaU, "1", non_negative(), "learning rate of U"),
      T::real("etaA", &P::etaA, "1", non_negative(), "learning rate of A"),
      T::real("Umin", &P::Umin, "1", any_value(), "lower bound of U"),
      T::real("Umax", &P::Umax, "1", any_value(), "upper bound of U"),
      T::real("Amin", &P::Amin, "1", any_value(), "lower bound of A"),
      T::real("Amax", &P::Amax, "1", any_value(), "upper bound of A"),
  };
  return table;
}

ModelSchema adex_schema() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  ModelSchema s;
  s.kind = "adex_costa";
  s.summary = "AdEx neurons with Costa 2015 STP + STDP synapses on a dense plastic matrix (Neofytou 2019)";
  s.family = "model_tables";
  s.parameters = adex_parameter_table().infos(AdexCostaParams{});
  const char* units[NUM_ADEX_VARS] = {"mV", "mV", "pA", "pA", "1", "1", "1", "1", "1", "1", "1"};
  for (int v = 0; v < NUM_ADEX_VARS; ++v)
    s.variables.push_back({kAdexVarNames[v], units[v], plausible_bound_for_unit(units[v])});
  s.parameter_sets = {"costa2015"};
  s.tables.push_back(TableSpec{
      "simulation",
      {SettingSpec::number("device_budget", 0, inf, 0,
                           "bytes of device memory the run may use (0: the device's free memory); when the synapses "
                           "do not fit, GPU runs stream row blocks between page-locked host memory and the device")}});
  s.tables.push_back(TableSpec{
      "network",
      {SettingSpec::choice("architecture", {"mxm", "nxm"},
                           "mxm: n AdEx neurons, n x n recurrent synapses; nxm: inputs -> neurons"),
       SettingSpec::integer("neurons", 1, 1e9, 100, "AdEx neurons (mxm: also the presynaptic rows); compare.sizes sweeps it"),
       SettingSpec::integer("inputs", 0, 1e9, 0, "spike sources (nxm only): the presynaptic rows; compare.densities sweeps it"),
       SettingSpec::choice("connectivity", {"all", "half", "file"},
                           "all: every slot (the diagonal too); half: the parity rule; file: network.file"),
       SettingSpec::choice("parity", {"post_even", "pre_even", "both_even"},
                           "connectivity = half: which index must be even (post_even: the study's 50 %)"),
       SettingSpec::file("file", "connectivity = file: one 'pre post' pair per line, '#' comments"),
       SettingSpec::choice("post_events", {"model", "imposed", "none"},
                           "nxm: what triggers postsynaptic updates: the targets' own spikes, the input pattern, "
                           "or nothing (the study's lighter NxM)")}});
  s.tables.push_back(TableSpec{
      "spikes",
      {SettingSpec::choice("pattern", {"all", "even", "model", "poisson_gaussian", "file"},
                           "presynaptic spikes: imposed every step on all or even indices, the neurons' own "
                           "(mxm), Poisson-Gaussian inputs or a spike-time file (nxm)"),
       SettingSpec::number("rate_on_hz", 0, inf, 50, "poisson_gaussian: peak rate F_on"),
       SettingSpec::number("rate_off_hz", 0, inf, 3, "poisson_gaussian: background rate F_off"),
       SettingSpec::number("radius", 1e-9, inf, 5, "poisson_gaussian: width of the rate profile (inputs)"),
       SettingSpec::integer_list("positions", -1e9, 1e9, "poisson_gaussian: profile centre (1-based input) of each phase"),
       SettingSpec::integer_list("phase_steps", 1, 1e12, "poisson_gaussian: steps of each phase; the last lasts to the end"),
       SettingSpec::integer("seed", 0, 9.007199254740992e15, 1, "poisson_gaussian: counter-RNG seed"),
       SettingSpec::file("file", "pattern = file: one 'source step' pair per line, '#' comments")}});
  return s;
}

}  // namespace kbrain::adex
