// run_on<GalbraithGemmModel> for every enabled backend and both precisions: the CUSUMMA translation unit.
#include "models/galbraith_gemm/gemm_model.hpp"
#include "models/runtime/run_dispatch_impl.hpp"

KBRAIN_MODEL_RUNS(kbrain::galbraith::GalbraithGemmModel)
