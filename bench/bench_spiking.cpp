// Google Benchmark: spiking-network kernels per backend, float/double:
//   point_step/<backend>/<real>/<model>/<N>   one full network step of COBA (LIF) or COBAHH (HH), N neurons,
//                                             80 synapses per neuron, in the self-sustained regime
//   point_step_launched/cuda/...              the same with every step's kernels launched one by one (the
//                                             product replays a recorded step: a CUDA graph)
//   spike_delivery/<backend>/<N>               delivery of N/100 spikes x 80 synapses into the ring (fixed point)
// Counters: ns_per_neuron_step, synaptic_events_per_second, us_drain_per_step (the spike log drained every 4096
// steps outside the timing, as the runner drains it in its output phase).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "backends/registry.hpp"
#include "core/kokkos_compat.hpp"
#include "core/timing/stopwatch.hpp"
#include "models/point/point_network.hpp"
#include "models/point/point_setup.hpp"
#include "models/point/spiking_run.hpp"
#include "spiking/generated_synapses.hpp"
#include "spiking/spike_exchange.hpp"

namespace {

using namespace kbrain;

// Fixed in-degree K; weights scaled by 80 / K so that each neuron gets the benchmark's mean drive (as
// experiments/cobahh_1m.toml does for K = 200).
point::PointSetup bench_setup(const std::string& set_name, std::int64_t neurons, int in_degree = 80) {
  const point::NamedSet set = point::point_parameter_set(set_name);
  spiking::NetworkSpec ns = point::named_network(set, neurons, 1);
  ns.connectivity = "fixed_in_degree";
  ns.in_degree = in_degree;
  ns.w_exc.value *= 80.0 / in_degree;
  ns.w_inh.value *= 80.0 / in_degree;
  return point::make_point_setup(set.params, set.initial, ns, point::named_drive(set, neurons));
}

// The step split into its phases, each waited for: neuron update, spike compaction, delivery (microseconds per
// step as counters). The sum exceeds point_step's time, which overlaps launches with device work.
// A step probe (point::PointNetworkSimulation's Probe) that waits for each phase and adds up its wall seconds.
template <class Exec>
struct FencedPhaseClock {
  double seconds[3] = {0, 0, 0};  // point::StepPhase order: neurons, compact, deliver
  Stopwatch clock;
  void begin() {
    Exec().fence();
    clock.restart();
  }
  void lap(point::StepPhase phase) {
    Exec().fence();
    seconds[static_cast<int>(phase)] += clock.seconds();
    clock.restart();
  }
};

template <class Backend, class Real, bool AtomicAppend>
void bm_point_phases(benchmark::State& state, const point::PointSetup& setup) {
  point::PointNetworkSimulation<Backend, Real, AtomicAppend, FencedPhaseClock<typename Backend::execution_space>> sim(
      setup);
  for (int n = 0; n < 200; ++n) sim.step();
  sim.probe() = {};
  std::int64_t steps = 0;
  for (auto _ : state) {
    sim.step();
    ++steps;
  }
  const double* t = sim.probe().seconds;
  state.counters["us_neurons"] = 1e6 * t[0] / double(steps);
  state.counters["us_compact"] = 1e6 * t[1] / double(steps);
  state.counters["us_deliver"] = 1e6 * t[2] / double(steps);
}

template <class Backend, class Real, bool Replay = true>
void bm_point_step(benchmark::State& state, std::string set_name, std::int64_t neurons, int in_degree = 80) {
  const auto setup = bench_setup(set_name, neurons, in_degree);
  point::PointNetworkSimulation<Backend, Real, Backend::is_gpu, point::NoStepProbe, Replay> sim(setup);
  sim.enable_spike_log();  // as the runner does
  for (int n = 0; n < 200; ++n) sim.step();  // past the initial transient
  std::int64_t steps = 0;
  const std::int64_t spikes_before = sim.total_spikes();
  (void)sim.drain_spikes();
  // The runner drains the log every point::kSpikeStreamSteps steps while spikes.csv streams, and counts the drain as
  // output, not simulate time; so does this loop (after a timed wait for the steps so far). Without it a long run
  // fills the log, and the host moves and sorts it in the middle of the timed steps.
  Stopwatch drain_clock;
  double drain_s = 0;
  for (auto _ : state) {
    sim.step();
    if (++steps % point::kSpikeStreamSteps == 0) {
      sim.fence();
      state.PauseTiming();
      drain_clock.restart();
      (void)sim.drain_spikes();
      drain_s += drain_clock.seconds();
      state.ResumeTiming();
    }
  }
  sim.fence();
  const std::int64_t spikes = sim.total_spikes() - spikes_before;
  state.counters["replayed"] = sim.replays_steps() ? 1 : 0;
  state.counters["us_drain_per_step"] = 1e6 * drain_s / double(std::max<std::int64_t>(1, steps));
  state.counters["ns_per_neuron_step"] = benchmark::Counter(
      double(neurons) * double(steps) * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["synaptic_events_per_second"] =
      benchmark::Counter(double(spikes) * double(in_degree), benchmark::Counter::kIsRate);
}

template <class Backend>
void bm_delivery(benchmark::State& state, std::int64_t neurons) {
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  const auto setup = bench_setup("coba", neurons);
  const auto syn = spiking::generate_synapses<Exec>(setup.network, setup.delays).csr;
  const int count = static_cast<int>(neurons / 100);
  Kokkos::View<int*, Mem> list("bench_spike_list", count);
  auto lh = Kokkos::create_mirror_view(list);
  for (int k = 0; k < count; ++k) lh(k) = k * 100;
  Kokkos::deep_copy(list, lh);
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring("bench_ring", 2, neurons);
  Kokkos::View<long long*, Mem> counters("bench_counters", spiking::kSpikeCounters);
  Kokkos::deep_copy(Kokkos::subview(counters, int(spiking::StepSpikes)), static_cast<long long>(count));
  spiking::SpikeDeliverFunctor<Exec> f{syn, list, counters, ring, spiking::make_step_clock<Mem>(0), 1, 2};
  const int league = Backend::is_gpu ? 2048 : std::max(1, kx::concurrency<Exec>());
  for (auto _ : state) {
    Kokkos::parallel_for("kbrain::bench::deliver", Kokkos::TeamPolicy<Exec>(league, Kokkos::AUTO), f);
    Exec().fence();
  }
  state.counters["synaptic_events_per_second"] =
      benchmark::Counter(double(count) * 80.0, benchmark::Counter::kIsIterationInvariantRate);
}

template <class Backend>
void register_backend() {
  const std::string b = Backend::name;
  std::vector<std::int64_t> sizes = {4000, 64000};
  if (Backend::is_gpu) sizes.push_back(1000000);
  for (auto n : sizes) {
    for (const char* set : {"coba", "cobahh"}) {
      const std::string tag = std::string(set) + "/" + std::to_string(n);
      benchmark::RegisterBenchmark(("point_step/" + b + "/float/" + tag).c_str(),
                                   [=](benchmark::State& s) { bm_point_step<Backend, float>(s, set, n); })
          ->Unit(benchmark::kMicrosecond)->UseRealTime();
      benchmark::RegisterBenchmark(("point_step/" + b + "/double/" + tag).c_str(),
                                   [=](benchmark::State& s) { bm_point_step<Backend, double>(s, set, n); })
          ->Unit(benchmark::kMicrosecond)->UseRealTime();
      if (is_detected_v<StepGraphOf, Backend>) {
        benchmark::RegisterBenchmark(("point_step_launched/" + b + "/float/" + tag).c_str(),
                                     [=](benchmark::State& s) { bm_point_step<Backend, float, false>(s, set, n); })
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
        benchmark::RegisterBenchmark(("point_step_launched/" + b + "/double/" + tag).c_str(),
                                     [=](benchmark::State& s) { bm_point_step<Backend, double, false>(s, set, n); })
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
      }
    }
    if (n == 1000000) {  // the issue 7 target: COBAHH, 1M neurons x 200 synapses, float
      benchmark::RegisterBenchmark(("point_step/" + b + "/float/cobahh_k200/1000000").c_str(),
                                   [=](benchmark::State& s) { bm_point_step<Backend, float>(s, "cobahh", n, 200); })
          ->Unit(benchmark::kMicrosecond)->UseRealTime();
      for (bool atomic : {false, true})
        benchmark::RegisterBenchmark(
            ("point_phases/" + b + "/float/cobahh_k200/1000000/" + (atomic ? "append" : "scan")).c_str(),
            [=](benchmark::State& s) {
              static const point::PointSetup setup = bench_setup("cobahh", 1000000, 200);  // built once
              if (atomic) bm_point_phases<Backend, float, true>(s, setup);
              else bm_point_phases<Backend, float, false>(s, setup);
            })
            ->Unit(benchmark::kMicrosecond)->UseRealTime();
    }
    benchmark::RegisterBenchmark(("spike_delivery/" + b + "/" + std::to_string(n)).c_str(),
                                 [=](benchmark::State& s) { bm_delivery<Backend>(s, n); })
        ->Unit(benchmark::kMicrosecond)->UseRealTime();
  }
}

}  // namespace

namespace kbrain::bench {
// Called from bench_main.cpp's main before benchmark::Initialize.
void register_spiking_benchmarks() {
  for_each_backend([](auto tag) { register_backend<typename decltype(tag)::type>(); });
}
}  // namespace kbrain::bench
