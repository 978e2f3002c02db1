// Google Benchmark: the Galbraith SOM's three training strategies (models/galbraith_som/som_simulation.hpp) per
// backend:
//   som_step/<backend>/float/<per_input|chunks|resident>/<W>   one training input on a W x W grid, window
//                                                              neighbourhood, the generated 2400 x 1800 picture
// The product picks resident on GPUs (per_input beyond 4096²) and chunks on CPUs; these are the measurement behind
// that choice (bench/README.md). Counter: us_per_input (the wait for each iteration's 4096 inputs included).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include "backends/registry.hpp"
#include "models/galbraith_som/som_model.hpp"
#include "models/registry.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::galbraith;

template <class Backend>
void bm_som_step(benchmark::State& state, SomStrategy strategy, std::int64_t side) {
  const std::string toml = "name = \"bench\"\n[model]\nkind = \"galbraith_som\"\n[simulation]\nsteps = 100000000\n"
                           "neighbourhood = \"window\"\n[som]\nwidth = " + std::to_string(side) + "\nheight = " +
                           std::to_string(side) + "\nseed = 1\n[input]\nwidth = 2400\nheight = 1800\nseed = 2010\n";
  const ExperimentConfig cfg = parse_model_experiment(toml, "bench_som.toml");
  const SomPlan plan = make_som_plan(cfg, {});
  RunRequest request;
  RunResult res;
  SomSimulation<Backend, float> sim(plan, request, res, strategy);
  // An iteration is kInputs inputs and the wait for them (what is queued is launched first), so every input timed
  // has been trained, whichever strategy queues them.
  constexpr std::int64_t kInputs = 4096;
  std::int64_t inputs = 0;
  for (auto _ : state) {
    for (std::int64_t k = 0; k < kInputs; ++k) sim.step();
    sim.state();
    sim.fence();
    inputs += kInputs;
  }
  state.counters["us_per_input"] =
      benchmark::Counter(double(inputs) * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class Backend>
void register_backend() {
  const std::string b = Backend::name;
  for (const std::int64_t side : {256, 512, 2048}) {
    if (!Backend::is_gpu && side > 512) continue;
    for (const SomStrategy s : {SomStrategy::PerInput, SomStrategy::Chunks, SomStrategy::Resident}) {
      const char* how = s == SomStrategy::PerInput ? "per_input" : s == SomStrategy::Chunks ? "chunks" : "resident";
      const std::string name = "som_step/" + b + "/float/" + how + "/" + std::to_string(side);
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) { bm_som_step<Backend>(st, s, side); })
          ->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(1.0);
    }
  }
}

}  // namespace

namespace kbrain::bench {
void register_som_benchmarks() {
  for_each_backend([](auto tag) { register_backend<typename decltype(tag)::type>(); });
}
}  // namespace kbrain::bench
