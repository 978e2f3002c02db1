#include "models/olive/olive_schema.hpp"

#include "models/olive/cell/io_vars.hpp"

namespace kbrain::olive {

const ParameterTable<olive::IoParameters>& olive_parameter_table() {
  using P = olive::IoParameters;
  using T = ParameterTable<P>;
  static const T table{
      T::real("c_m", &P::c_m, "uF/cm^2", positive(), "membrane capacitance"),
      T::real("g_na_s", &P::g_na_s, "mS/cm^2", non_negative(), "soma sodium"),
      T::real("g_kdr_s", &P::g_kdr_s, "mS/cm^2", non_negative(), "soma delayed rectifier K"),
      T::real("g_k_s", &P::g_k_s, "mS/cm^2", non_negative(), "soma fast K"),
      T::real("g_ls", &P::g_ls, "mS/cm^2", non_negative(), "soma leak"),
      T::real("g_k_ca", &P::g_k_ca, "mS/cm^2", non_negative(), "dendrite Ca-activated K"),
      T::real("g_cah", &P::g_cah, "mS/cm^2", non_negative(), "dendrite high-threshold Ca"),
      T::real("g_ld", &P::g_ld, "mS/cm^2", non_negative(), "dendrite leak"),
      T::real("g_h", &P::g_h, "mS/cm^2", non_negative(), "dendrite H current"),
      T::real("g_na_a", &P::g_na_a, "mS/cm^2", non_negative(), "axon hillock sodium"),
      T::real("g_k_a", &P::g_k_a, "mS/cm^2", non_negative(), "axon hillock K"),
      T::real("g_la", &P::g_la, "mS/cm^2", non_negative(), "axon hillock leak"),
      T::real("p1", &P::p1, "1", open_unit_interval(), "soma-dendrite area ratio"),
      T::real("p2", &P::p2, "1", open_unit_interval(), "soma-axon area ratio"),
      T::real("g_int", &P::g_int, "mS/cm^2", non_negative(), "internal coupling conductance"),
      T::real("v_na", &P::v_na, "mV", any_value(), "sodium reversal potential"),
      T::real("v_k", &P::v_k, "mV", any_value(), "potassium reversal potential"),
      T::real("v_ca", &P::v_ca, "mV", any_value(), "calcium reversal potential"),
      T::real("v_h", &P::v_h, "mV", any_value(), "H-current reversal potential"),
      T::real("v_l", &P::v_l, "mV", any_value(), "leak reversal potential"),
  };
  return table;
}

ModelSchema olive_schema() {
  ModelSchema s;
  s.kind = "io";
  s.summary = "inferior-olive cells (de Gruijl et al. 2012, three compartments) coupled by gap junctions";
  s.family = "gap_network";
  s.parameters = olive_parameter_table().infos(olive::io_parameter_set("reference"));
  for (int v = 0; v < olive::NUM_VARS; ++v) {
    const std::string name = olive::kVarNames[v];
    const bool voltage = name.rfind("v_", 0) == 0;
    const std::string unit = voltage ? "mV" : name == "i_cah" ? "uA/cm^2" : "1";
    s.variables.push_back({name, unit, plausible_bound_for_unit(unit)});
  }
  for (const char* const* n = olive::io_parameter_set_names(); *n; ++n) s.parameter_sets.emplace_back(*n);
  s.options.push_back({"gap_kernel", {"auto", "fused", "split", "tiled"},
                       "gap currents of CSR networks: auto (from network shape, backend, precision), fused, split, "
                       "tiled (gaussian3d)"});
  s.options.push_back({"mesh_kernel", {"on", "off"},
                       "mesh2d networks: neighbours from the index (on) or the CSR kernels (off)"});
  return s;
}

}  // namespace kbrain::olive
