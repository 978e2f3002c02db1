#pragma once
// The galbraith_lif model's declarations: parameter table, variables and the tables of its experiment files.
#include "core/model/model_schema.hpp"
#include "core/model/parameter_table.hpp"
#include "models/galbraith_lif/galbraith_parameters.hpp"

namespace kbrain::galbraith {

// Recordable variables, indexed by neuron: the membrane value at the end of the step and the spikes so far.
enum GalbraithVar { V_M, SPIKE_COUNT, NUM_GALBRAITH_VARS };
inline constexpr const char* kGalbraithVarNames[NUM_GALBRAITH_VARS] = {"V", "count"};

const ParameterTable<GalbraithParams>& galbraith_parameter_table();
ModelSchema galbraith_schema();

}  // namespace kbrain::galbraith
