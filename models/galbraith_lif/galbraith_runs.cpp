// run_on<GalbraithLifModel> for every enabled backend and both precisions: the Galbraith kernels' translation unit.
#include "models/galbraith_lif/galbraith_model.hpp"
#include "models/runtime/run_dispatch_impl.hpp"

KBRAIN_MODEL_RUNS(kbrain::galbraith::GalbraithLifModel)
