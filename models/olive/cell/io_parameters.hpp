#pragma once
// Inferior-olive cell constants (de Gruijl et al. 2012, InfOli reference code), see docs/models/inferior-olive.md.
#include <string>

namespace kbrain::olive {

// How the two fast-K gates (soma x_s, axon x_a) are advanced: the reference code uses a literal 0.05 ms there
// whatever dt is; `corrected` uses dt. Identical when dt = 0.05.
enum class GateStepMode { Reference, Corrected };

struct IoParameters {
  double c_m = 1.0;
  // soma
  double g_na_s = 150, g_kdr_s = 9, g_k_s = 5, g_ls = 0.016;
  // dendrite
  double g_k_ca = 35, g_cah = 4.5, g_ld = 0.016, g_h = 0.125;
  // axon hillock
  double g_na_a = 240, g_k_a = 20, g_la = 0.016;
  // morphology
  double p1 = 0.25, p2 = 0.15, g_int = 0.13;
  // reversal potentials
  double v_na = 55, v_k = -75, v_ca = 120, v_h = -43, v_l = 10;
  double dt = 0.05;
  GateStepMode gate_mode = GateStepMode::Reference;
};

// Named parameter sets. "reference" = the InfOli constants above. Published variants (dt = 0.025, g_h = 0.12, ...)
// are written as explicit per-constant overrides in the experiment file, never silent changes.
// Throws std::invalid_argument for an unknown name.
IoParameters io_parameter_set(const std::string& name);
const char* const* io_parameter_set_names();  // null-terminated

}  // namespace kbrain::olive
