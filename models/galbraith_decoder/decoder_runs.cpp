// run_on<GalbraithDecoderModel> for every enabled backend and both precisions: the decoder's translation unit.
#include "models/galbraith_decoder/decoder_model.hpp"
#include "models/runtime/run_dispatch_impl.hpp"

KBRAIN_MODEL_RUNS(kbrain::galbraith::GalbraithDecoderModel)
