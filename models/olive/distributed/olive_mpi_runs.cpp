// run_on<OliveMpiModel> for every enabled backend and both precisions: the distributed IO step's one translation
// unit (MPI builds only).
#include "models/olive/distributed/olive_mpi_model.hpp"
#include "models/runtime/run_dispatch_impl.hpp"

KBRAIN_MODEL_RUNS(kbrain::olive::OliveMpiModel)
