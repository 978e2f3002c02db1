#pragma once
// What an experiment file of kind "galbraith_decoder" may say ([simulation], [population], [stimulus]);
// decoder_schema.cpp.
#include "core/model/model_schema.hpp"

namespace kbrain::galbraith {

inline constexpr const char* kDecoderVarNames[] = {"xhat"};
ModelSchema decoder_schema();

}  // namespace kbrain::galbraith
