// Google Benchmark: the Galbraith SOM's two training strategies (models/galbraith_som/som_simulation.hpp) per backend:
//   som_step/<backend>/float/<per_input|chunks>/<W>   one training input on a W x W grid, window neighbourhood, the
//                                                     generated 2400 x 1800 picture from its first pixel
// The product picks per_input on GPUs and chunks on CPUs; this pair is the measurement behind that choice
// (bench/README.md). Counter: us_per_input.
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
  std::int64_t inputs = 0;
  for (auto _ : state) {
    sim.step();
    ++inputs;
  }
  sim.state();  // launches what is queued
  sim.fence();
  state.counters["us_per_input"] =
      benchmark::Counter(double(inputs) * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class Backend>
void register_backend() {
  const std::string b = Backend::name;
  for (const std::int64_t side : {256, 512, 2048}) {
    if (!Backend::is_gpu && side > 512) continue;
    for (const SomStrategy s : {SomStrategy::PerInput, SomStrategy::Chunks}) {
      const std::string name = "som_step/" + b + "/float/" + (s == SomStrategy::PerInput ? "per_input" : "chunks") +
                               "/" + std::to_string(side);
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
