#include "experiments/io_dispatch.hpp"

#include "backends/registry.hpp"
#include "experiments/io_runner.hpp"

namespace kbrain {

IoRunResult run_io_on(const std::string& backend, Precision precision, const IoRunPlan& plan) {
  IoRunResult result;
  with_backend(backend, [&](auto tag) {
    using B = typename decltype(tag)::type;
    result = precision == Precision::Float ? run_io<B, float>(plan) : run_io<B, double>(plan);
  });
  return result;
}

}  // namespace kbrain
