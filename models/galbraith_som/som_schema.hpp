#pragma once
// The galbraith_som model's declarations: its variables (the weight channels) and the tables of its experiment files.
#include "core/model/model_schema.hpp"

namespace kbrain::galbraith {

// Recordable variables, indexed by neuron: the three weight channels.
enum SomVar { SOM_R, SOM_G, SOM_B, NUM_SOM_VARS };
inline constexpr const char* kSomVarNames[NUM_SOM_VARS] = {"r", "g", "b"};

ModelSchema som_schema();

}  // namespace kbrain::galbraith
