#pragma once
// The adex_costa model's declarations: parameter table, variables and the tables of its experiment files.
#include "core/model/model_schema.hpp"
#include "core/model/parameter_table.hpp"
#include "models/adex_costa/adex_parameters.hpp"

namespace kbrain::adex {

// Recordable variables: neuron variables are indexed by neuron (the AdEx targets), synapse variables by synapse id
// pre * n_post + post. Synapse values are those at the end of the step (traces and r, u decayed to that time).
enum AdexVar { V_M, V_T, ADAPT_X, I_SYN, SYN_U, SYN_A, SYN_R, SYN_USE, SYN_FFP, SYN_FBP, SYN_FBN, NUM_ADEX_VARS };
inline constexpr const char* kAdexVarNames[NUM_ADEX_VARS] = {"V", "VT", "x", "I", "U", "A", "R", "u", "FFp", "FBp", "FBn"};
inline constexpr bool is_synapse_var(int v) { return v >= SYN_U; }

const ParameterTable<AdexCostaParams>& adex_parameter_table();
ModelSchema adex_schema();

}  // namespace kbrain::adex
