// Google Benchmark: Galbraith 2010's LIF network (models/galbraith_lif/), one step per iteration:
//   galbraith_step/<backend>/float/<update>/<network>   the product's step (GalbraithSimulation), event-driven or
//                                                       agent, on the ring (in-degree 1) and the fully connected
//                                                       network of 1000 (in-degree 1000), after 400 steps
//   galbraith_event_launch/<backend>/<how>/ring<N>      the event step's kernel alone, launched through
//                                                       Kokkos::parallel_for or the backend's chained launch (CUDA):
//                                                       how much of a small step is launch (bench/README.md)
// Counter: us_per_step.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include <Kokkos_Core.hpp>

#include "backends/optional_traits.hpp"
#include "backends/registry.hpp"
#include "models/galbraith_lif/galbraith_model.hpp"
#include "models/registry.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::galbraith;

std::shared_ptr<const ExperimentConfig> config(const std::string& topology, std::int64_t neurons, const char* update) {
  return std::make_shared<const ExperimentConfig>(parse_model_experiment(
      "name = \"bench\"\n[model]\nkind = \"galbraith_lif\"\n[simulation]\ndt = 0.25\nsteps = 40000\nsynapse_update = \"" +
          std::string(update) + "\"\n[network]\ntopology = \"" + topology + "\"\nneurons = " + std::to_string(neurons) + "\n",
      "bench.toml"));
}

void per_step_counter(benchmark::State& state, std::int64_t steps) {
  state.counters["us_per_step"] =
      benchmark::Counter(double(steps) * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class Backend>
void bm_step(benchmark::State& state, std::string topology, std::int64_t neurons, const char* update) {
  const auto cfg = config(topology, neurons, update);
  const GalbraithPlan plan = make_galbraith_plan(*cfg, {});
  RunRequest request;
  RunResult res;
  GalbraithSimulation<Backend, float> sim(plan, request, res);
  for (int k = 0; k < 400; ++k) sim.step();
  sim.fence();
  std::int64_t steps = 0;
  for (auto _ : state) {
    sim.step();
    ++steps;
  }
  sim.fence();
  per_step_counter(state, steps);
}

template <class Backend>
void bm_event_launch(benchmark::State& state, std::int64_t neurons, bool chained) {
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  const auto cfg = config("ring", neurons, "event");
  const GalbraithPlan plan = make_galbraith_plan(*cfg, {});
  GalbraithState<float, Mem> st;
  st.allocate(plan);
  st.upload(plan);
  const auto views = EventViews<float, Mem>::of(st);
  const auto p = SomaParams<float>::from(plan);
  std::int32_t n = 0;
  for (auto _ : state) {
    const EventStep<float, Mem> f{views, p, n++};
    if constexpr (kHasChainedLaunch<Backend>) {
      if (chained) {
        Backend::chained_launch::template parallel_for<256, 1>(f, 0, static_cast<int>(neurons));
        continue;
      }
    }
    Kokkos::parallel_for("bench::galbraith_event", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, neurons), f);
  }
  Exec().fence();
  per_step_counter(state, n);
}

template <class Backend>
void register_backend() {
  const std::string b = Backend::name;
  for (const char* update : {"event", "agent"})
    for (const auto& [topology, n] : {std::pair<const char*, std::int64_t>{"ring", 100}, {"ring", 500000}, {"full", 1000}}) {
      if (!Backend::is_gpu && (n > 1000 || std::string(update) == "agent")) continue;  // host: the small ring only
      benchmark::RegisterBenchmark(("galbraith_step/" + b + "/float/" + update + "/" + topology + std::to_string(n)).c_str(),
                                   [=](benchmark::State& s) { bm_step<Backend>(s, topology, n, update); })
          ->Unit(benchmark::kMicrosecond)->UseRealTime();
    }
  for (const std::int64_t n : {100, 500000}) {
    if (!Backend::is_gpu && n > 1000) continue;
    for (const bool chained : {false, true}) {
      if (chained && !kHasChainedLaunch<Backend>) continue;
      benchmark::RegisterBenchmark(("galbraith_event_launch/" + b + (chained ? "/chained/ring" : "/parallel_for/ring") +
                                    std::to_string(n)).c_str(),
                                   [=](benchmark::State& s) { bm_event_launch<Backend>(s, n, chained); })
          ->Unit(benchmark::kMicrosecond)->UseRealTime();
    }
  }
}

}  // namespace

namespace kbrain::bench {
void register_galbraith_benchmarks() {
  for_each_backend([](auto tag) { register_backend<typename decltype(tag)::type>(); });
}
}  // namespace kbrain::bench
