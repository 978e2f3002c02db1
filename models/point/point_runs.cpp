// run_on<PointModel> for every enabled backend and both precisions: the point-neuron kernels' translation unit.
#include "models/point/point_model.hpp"
#include "models/runtime/run_dispatch_impl.hpp"

KBRAIN_MODEL_RUNS(kbrain::point::PointModel)
