// run_on<CortexHhModel> for every enabled backend and both precisions: the Wang 2012 kernels' translation unit.
#include "models/cortex_hh/cortex_model.hpp"
#include "models/runtime/run_dispatch_impl.hpp"

KBRAIN_MODEL_RUNS(kbrain::cortex::CortexHhModel)
