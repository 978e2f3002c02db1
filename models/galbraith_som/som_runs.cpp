// run_on<GalbraithSomModel> for every enabled backend and both precisions: the SOM kernels' translation unit.
#include "models/galbraith_som/som_model.hpp"
#include "models/runtime/run_dispatch_impl.hpp"

KBRAIN_MODEL_RUNS(kbrain::galbraith::GalbraithSomModel)
