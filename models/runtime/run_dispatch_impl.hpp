#pragma once
// Definition of run_on<Model> (models/runtime/run_dispatch.hpp), for the one translation unit per model that
// instantiates it with KBRAIN_MODEL_RUNS.
#include "backends/registry.hpp"
#include "models/runtime/model_runner.hpp"
#include "models/runtime/run_dispatch.hpp"

namespace kbrain {

template <class Model>
RunResult run_on(const typename Model::Plan& plan, const std::string& backend, Precision precision,
                 const RunRequest& request) {
  RunResult result;
  with_backend(backend, [&](auto tag) {
    using B = typename decltype(tag)::type;
    result = precision == Precision::Float ? run_model<Model, B, float>(plan, request)
                                           : run_model<Model, B, double>(plan, request);
  });
  return result;
}

template <class Model>
MemoryStatement memory_on(const typename Model::Plan& plan, const std::string& backend, Precision precision,
                          const RunRequest& request) {
  MemoryStatement m;
  with_backend(backend, [&](auto tag) {
    using B = typename decltype(tag)::type;
    m = precision == Precision::Float ? run_memory<Model, B, float>(plan, request)
                                      : run_memory<Model, B, double>(plan, request);
  });
  return m;
}

}  // namespace kbrain

#define KBRAIN_MODEL_RUNS(MODEL)                                                                              \
  template kbrain::RunResult kbrain::run_on<MODEL>(const typename MODEL::Plan&, const std::string&,          \
                                                   kbrain::Precision, const kbrain::RunRequest&);        \
  template kbrain::MemoryStatement kbrain::memory_on<MODEL>(const typename MODEL::Plan&, const std::string&,  \
                                                            kbrain::Precision, const kbrain::RunRequest&);
