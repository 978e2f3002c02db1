#include "models/galbraith_lif/galbraith_schema.hpp"

#include <limits>

namespace kbrain::galbraith {

namespace {
ParameterInfo order_bounds() {
  ParameterInfo i = non_negative();
  i.max = 10;
  return i;
}
}  // namespace

const ParameterTable<GalbraithParams>& galbraith_parameter_table() {
  using P = GalbraithParams;
  using T = ParameterTable<P>;
  static const T table{
      T::real("tau_rc", &P::tau_rc, "ms", positive(), "membrane time constant"),
      T::real("r_leak", &P::r_leak, "1", positive(), "membrane resistance R: dV/dt = (J R - V) / tau_rc"),
      T::real("v_th", &P::v_th, "1", positive(), "threshold (V resets to 0)"),
      T::real("tau_ref", &P::tau_ref, "ms", non_negative(), "refractory period (strict: round(tau_ref/dt) steps without integration)"),
      T::real("tau_psc", &P::tau_psc, "ms", positive(), "PSC filter time constant"),
      T::whole("filter_order", &P::filter_order, order_bounds(), "n of the PSC filter t^n exp(-t/tau_psc)"),
      T::real("filter_scale", &P::filter_scale, "1", positive(), "filter length L = ceil(filter_scale tau_psc / dt)"),
      T::real("weight", &P::weight, "1", any_value(), "synaptic weight (generated networks; files: network.weights)"),
      T::real("stimulus", &P::stimulus, "1", any_value(), "J_stim of the stimulated neurons"),
  };
  return table;
}

ModelSchema galbraith_schema() {
  ModelSchema s;
  s.kind = "galbraith_lif";
  s.summary = "Galbraith 2010 agent-style LIF network: RK4, strict refractoriness, t^n exp(-t/tau) PSC filters";
  s.family = "model_tables";
  s.parameters = galbraith_parameter_table().infos(GalbraithParams{});
  s.variables = {{kGalbraithVarNames[V_M], "1"}, {kGalbraithVarNames[SPIKE_COUNT], "1"}};
  s.parameter_sets = {"galbraith2010_proposed"};
  s.variant_setting = "simulation.synapse_update";
  s.tables.push_back(TableSpec{
      "simulation",
      {SettingSpec::choice("synapse_update", {"event", "agent"},
                           "event: one PSC buffer per target neuron, filled only by spikes (one fused kernel per step); "
                           "agent: the study's mapping, a team of L threads per synapse every step, five kernels"),
       SettingSpec::boolean("stage_timing", false,
                            "fence and time every stage of the step (stage_<name>_s in run.json; slows the run)")}});
  s.tables.push_back(TableSpec{
      "network",
      {SettingSpec::choice("topology", {"ring", "full", "random", "file"},
                           "ring: i -> i+1 mod N; full: all N^2 ordered pairs (self loops too); random: exactly "
                           "network.synapses distinct ordered pairs; file: network.file"),
       SettingSpec::integer("neurons", 1, std::numeric_limits<std::int32_t>::max(), 100,
                            "N; compare.sizes sweeps it"),
       SettingSpec::integer("synapses", 0, 4e18, 0, "random: S, the number of pairs; compare.densities sweeps it"),
       SettingSpec::integer("seed", 0, 9.007199254740992e15, 1, "random: counter-RNG seed"),
       SettingSpec::file("file", "topology = file: binary records (uint32 src, uint32 dst, float32 weight, float32 "
                                 "delay), little-endian, the study's connections.bin"),
       SettingSpec::choice("weights", {"file", "parameter"},
                           "topology = file: each record's weight, or the weight parameter for every synapse (the "
                           "study's loader)")}});
  s.tables.push_back(TableSpec{
      "stimulus",
      {SettingSpec::integer_list("neurons", 0, std::numeric_limits<std::int32_t>::max(),
                                 "0-based ids of the neurons given J_stim = stimulus every step (default [0], the "
                                 "thesis' neuron 1)")}});
  return s;
}

}  // namespace kbrain::galbraith
