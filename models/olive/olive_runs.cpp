// run_on<OliveModel> for every enabled backend and both precisions: the IO kernels' one translation unit.
#include "models/olive/olive_model.hpp"
#include "models/runtime/run_dispatch_impl.hpp"

KBRAIN_MODEL_RUNS(kbrain::olive::OliveModel)
