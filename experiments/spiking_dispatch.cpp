#include "backends/registry.hpp"
#include "experiments/spiking_run_plan.hpp"
#include "experiments/spiking_runner.hpp"

namespace kbrain {

SpikingRunResult run_spiking_on(const std::string& backend, Precision precision, const SpikingRunPlan& plan) {
  SpikingRunResult result;
  with_backend(backend, [&](auto tag) {
    using B = typename decltype(tag)::type;
    result = precision == Precision::Float ? run_spiking<B, float>(plan) : run_spiking<B, double>(plan);
  });
  return result;
}

}  // namespace kbrain
