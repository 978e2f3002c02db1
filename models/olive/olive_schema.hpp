#pragma once
// The inferior-olive model's declarations: its parameter table (name -> IoParameters member, unit, bounds) and its
// schema (kind "io", variables, parameter sets, the gap_kernel option).
#include "core/model/model_schema.hpp"
#include "core/model/parameter_table.hpp"
#include "models/olive/cell/io_parameters.hpp"

namespace kbrain::olive {

const ParameterTable<olive::IoParameters>& olive_parameter_table();
ModelSchema olive_schema();

}  // namespace kbrain::olive
