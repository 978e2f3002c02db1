// run_on<AdexCostaModel> for every enabled backend and both precisions: the dense plastic kernels' translation unit.
#include "models/adex_costa/adex_model.hpp"
#include "models/runtime/run_dispatch_impl.hpp"

KBRAIN_MODEL_RUNS(kbrain::adex::AdexCostaModel)
