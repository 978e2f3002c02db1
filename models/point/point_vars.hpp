#pragma once
// Names of the point-neuron state variables and which model has which (host and device code; no Kokkos).
#include <string>

#include "models/point/point_parameters.hpp"

namespace kbrain::point {

// Recordable variables, in the order of PointState::view().
enum PointVar : int { V = 0, GE, GI, XE, XI, U, M, H, N, P, NUM_POINT_VARS };
inline const char* const kPointVarNames[NUM_POINT_VARS] = {"v", "ge", "gi", "xe", "xi", "u", "m", "h", "n", "p"};

inline int point_var_index(const std::string& name) {
  for (int i = 0; i < NUM_POINT_VARS; ++i)
    if (name == kPointVarNames[i]) return i;
  return -1;
}

// Which variables a model has (recording others is an error).
inline bool model_has_var(const PointParameters& p, int var) {
  const bool syn = p.synapse != SynapseKind::Delta;
  switch (var) {
    case V: return true;
    case GE: case GI: return syn;
    case XE: case XI: return p.synapse == SynapseKind::ConductanceAlpha;
    case U: return p.model == NeuronModel::Izhikevich;
    case M: case H: case N: return p.model == NeuronModel::HhTraub || p.model == NeuronModel::CortexHh;
    case P: return (p.model == NeuronModel::HhTraub && p.g_m > 0) || p.model == NeuronModel::CortexHh;
  }
  return false;
}

}  // namespace kbrain::point
