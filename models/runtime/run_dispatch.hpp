#pragma once
// run_on<Model>: the one dispatch from a backend name and a precision to run_model<Model, Backend, Real>.
// The definitions are compiled once per model, in the model's folder (models/<model>/<model>_runs.cpp):
//   #include "models/runtime/run_dispatch_impl.hpp"
//   KBRAIN_MODEL_RUNS(kbrain::olive::OliveModel)
// so every model's kernels compile in a translation unit of their own, in parallel.
#include <string>

#include "core/config/experiment_config.hpp"
#include "models/runtime/memory_statement.hpp"
#include "models/runtime/run_plan.hpp"
#include "models/runtime/run_request.hpp"
#include "models/runtime/run_result.hpp"

namespace kbrain {

// What a run of `plan` on `backend` in `precision` will allocate on the host and the backend, from the plan alone;
// throws ConfigError (exit 2) for a run that does not fit (models/runtime/memory_statement.hpp). Allocates nothing.
template <class Model>
MemoryStatement memory_on(const typename Model::Plan& plan, const std::string& backend, Precision precision,
                          const RunRequest& request);

template <class Model>
RunResult run_on(const typename Model::Plan& plan, const std::string& backend, Precision precision,
                 const RunRequest& request);

}  // namespace kbrain
