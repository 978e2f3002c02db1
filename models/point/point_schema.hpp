#pragma once
// The spiking models' declarations: one parameter table per kind (lif, izhikevich, hh, cortex_hh), each binding the
// names of [model.parameters] to PointParameters members, and each kind's schema.
#include <string>

#include "core/model/model_schema.hpp"
#include "core/model/parameter_table.hpp"
#include "models/point/point_parameters.hpp"

namespace kbrain::point {

// Throws std::invalid_argument for a kind without a table.
const ParameterTable<PointParameters>& point_parameter_table(const std::string& kind);
ModelSchema point_schema(const std::string& kind);  // lif | izhikevich | hh
ModelSchema cortex_hh_schema();

}  // namespace kbrain::point
