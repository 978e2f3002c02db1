#pragma once
// Definition of run_on<Model> (models/runtime/run_dispatch.hpp), for the one translation unit per model that
// instantiates it with KBRAIN_MODEL_RUNS.
#include "backends/registry.hpp"
#include "models/runtime/model_runner.hpp"
#include "models/runtime/run_dispatch.hpp"

namespace kbrain {

// f(Backend tag, Real value) for the backend named `backend` and the precision asked for.
template <class F>
void with_backend_and_real(const std::string& backend, Precision precision, F&& f) {
  with_backend(backend, [&](auto tag) {
    if (precision == Precision::Float)
      f(tag, float{});
    else
      f(tag, double{});
  });
}

template <class Model>
RunResult run_on(const typename Model::Plan& plan, const std::string& backend, Precision precision,
                 const RunRequest& request) {
  RunResult result;
  with_backend_and_real(backend, precision, [&](auto tag, auto real) {
    result = run_model<Model, typename decltype(tag)::type, decltype(real)>(plan, request);
  });
  return result;
}

template <class Model>
MemoryStatement memory_on(const typename Model::Plan& plan, const std::string& backend, Precision precision,
                          const RunRequest& request) {
  MemoryStatement m;
  with_backend_and_real(backend, precision, [&](auto tag, auto real) {
    m = run_memory<Model, typename decltype(tag)::type, decltype(real)>(plan, request);
  });
  return m;
}

}  // namespace kbrain

#define KBRAIN_MODEL_RUNS(MODEL)                                                                              \
  template kbrain::RunResult kbrain::run_on<MODEL>(const typename MODEL::Plan&, const std::string&,          \
                                                   kbrain::Precision, const kbrain::RunRequest&);        \
  template kbrain::MemoryStatement kbrain::memory_on<MODEL>(const typename MODEL::Plan&, const std::string&,  \
                                                            kbrain::Precision, const kbrain::RunRequest&);
