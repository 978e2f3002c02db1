#pragma once
// The IO cell's state variables: their order, names and reference initial values. Kokkos-free, so that the model's
// schema (olive_schema.cpp) compiles without Kokkos, as the fuzz targets of the experiment loader build it.
#include <array>
#include <string>

namespace kbrain::olive {

enum Var : int {
  V_DEND, R_CAH, S_KCA, Q_H, CA_CONC, I_CAH,          // dendrite
  V_SOMA, K_CAL, L_CAL, H_NA, N_KDR, P_KDR, X_KS,      // soma
  V_AXON, H_NA_A, X_KA,                                // axon hillock
  NUM_VARS
};

inline constexpr std::array<const char*, NUM_VARS> kVarNames = {
    "v_dend", "r", "s", "q", "ca", "i_cah", "v_soma", "k", "l", "h", "n", "p", "x_s", "v_axon", "h_a", "x_a"};

inline constexpr std::array<double, NUM_VARS> kInitialState = {
    -60.0, 0.0112788, 0.0049291, 0.0337836, 3.7152, 0.5,                  // dendrite
    -60.0, 0.7423159, 0.0321349, 0.3596066, 0.2369847, 0.2369847, 0.1,  // soma
    -60.0, 0.9, 0.2369847};                                              // axon

// Index of a variable by name ("v_axon", ...), -1 if unknown.
inline int var_index(const std::string& name) {
  for (int i = 0; i < NUM_VARS; ++i)
    if (name == kVarNames[i]) return i;
  return -1;
}

}  // namespace kbrain::olive
