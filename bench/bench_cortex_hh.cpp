// Google Benchmark: the Wang 2012 cortical HH network (models/cortex_hh/) per numerical method, backend, precision:
//   cortex_step/<backend>/<real>/<method>/<N>   one network step (0.02 ms for fe/ee, 1 ms for the EAI methods) of
//                                               the wang2012 network: N neurons, in-degree 200, delays 2-4 ms,
//                                               thalamic DC to the first 20 % of the pyramidal cells, after 200 ms
// Counters: s_per_bio_s (wall time for 1 s of biology at this rate: the Wang 2012 Table II quantity),
// ns_per_neuron_ms (per neuron per ms of biology), spikes_per_ms.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "backends/registry.hpp"
#include "models/cortex_hh/cortex_network.hpp"
#include "models/point/point_setup.hpp"

namespace {

using namespace kbrain;

struct Method {
  const char* name;
  point::Integrator integrator;
  bool eai, lut, tpm;
};
const Method kMethods[] = {
    {"fe", point::Integrator::Euler, false, false, false},
    {"ee", point::Integrator::ExponentialEuler, false, false, false},
    {"eai", point::Integrator::Euler, true, false, false},
    {"eai_lut", point::Integrator::Euler, true, true, false},
    {"eai_tpm", point::Integrator::Euler, true, false, true},
    {"all", point::Integrator::Euler, true, true, true},
};

// The network depends on the method only through its delays in network steps: one setup per (N, EAI or not).
std::shared_ptr<const point::PointSetup> wang_setup(std::int64_t neurons, const Method& m) {
  static std::map<std::pair<std::int64_t, bool>, std::shared_ptr<point::PointSetup>> cache;
  auto& slot = cache[{neurons, m.eai}];
  if (!slot) {
    const point::NamedSet set = point::point_parameter_set("wang2012");
    point::PointParameters p = set.params;
    p.network_dt = m.eai ? 1.0 : 0.0;
    spiking::NetworkSpec ns = point::named_network(set, neurons, 1);
    ns.connectivity = "fixed_in_degree";
    ns.in_degree = 200;
    point::DriveSpec drive;
    drive.currents.push_back({0, neurons * 4 / 25, 3.0, 0.0});
    slot = std::make_shared<point::PointSetup>(point::make_point_setup(p, set.initial, ns, drive));
  }
  auto s = std::make_shared<point::PointSetup>(*slot);  // copy: method flags only
  s->params.integrator = m.integrator;
  s->params.lut = m.lut;
  s->params.tpm = m.tpm;
  return s;
}

template <class Backend, class Real>
void bm_cortex_step(benchmark::State& state, Method m, std::int64_t neurons) {
  const auto setup = wang_setup(neurons, m);
  cortex::CortexHhSimulation<Backend, Real> sim(*setup);
  const double step_ms = setup->params.exchange_dt();
  while (sim.steps_done() * setup->params.dt < 200.0) sim.step();  // past the onset
  std::int64_t steps = 0;
  const std::int64_t spikes_before = sim.total_spikes();
  for (auto _ : state) {
    sim.step();
    ++steps;
  }
  const std::int64_t spikes = sim.total_spikes() - spikes_before;  // waits for the device
  const double bio_ms = double(steps) * step_ms;
  state.counters["s_per_bio_s"] =
      benchmark::Counter(bio_ms * 1e-3, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["ns_per_neuron_ms"] = benchmark::Counter(
      double(neurons) * bio_ms * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["spikes_per_ms"] = double(spikes) / bio_ms;
}

template <class Backend>
void register_backend() {
  const std::string b = Backend::name;
  std::vector<std::int64_t> sizes = {20000};
  if (Backend::is_gpu) sizes = {4000, 200000, 1000000};  // 4000: the study's size, a launch-bound step
  for (auto n : sizes) {
    const auto unit = n < 100000 ? benchmark::kMicrosecond : benchmark::kMillisecond;
    for (const Method& m : kMethods) {
      const std::string tag = std::string(m.name) + "/" + std::to_string(n);
      benchmark::RegisterBenchmark(("cortex_step/" + b + "/float/" + tag).c_str(),
                                   [=](benchmark::State& s) { bm_cortex_step<Backend, float>(s, m, n); })
          ->Unit(unit)->UseRealTime();
      benchmark::RegisterBenchmark(("cortex_step/" + b + "/double/" + tag).c_str(),
                                   [=](benchmark::State& s) { bm_cortex_step<Backend, double>(s, m, n); })
          ->Unit(unit)->UseRealTime();
    }
  }
}

}  // namespace

namespace kbrain::bench {
void register_cortex_benchmarks() {
  for_each_backend([](auto tag) { register_backend<typename decltype(tag)::type>(); });
}
}  // namespace kbrain::bench
