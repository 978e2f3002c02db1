#pragma once
// What an experiment file of kind "galbraith_gemm" may say ([gemm], [simulation]); gemm_schema.cpp.
#include "core/model/model_schema.hpp"

namespace kbrain::galbraith {

inline constexpr const char* kGemmVarNames[] = {"c"};
ModelSchema gemm_schema();

}  // namespace kbrain::galbraith
