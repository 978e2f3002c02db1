#pragma once
// IO network state: structure of arrays, one row per state variable, one column per cell (LayoutRight, so each
// variable is contiguous over cells). Two buffers are swapped every step; nothing is copied.
#include <array>
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

namespace kbrain::io {

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

template <class Real, class MemSpace>
using StateView = Kokkos::View<Real**, Kokkos::LayoutRight, MemSpace>;

template <class Real, class MemSpace>
struct IoStateBuffers {
  StateView<Real, MemSpace> cur, next;
  void swap() { std::swap(cur, next); }
};

}  // namespace kbrain::io
