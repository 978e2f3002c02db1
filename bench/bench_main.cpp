// Google Benchmark: the IO step per backend, float/double, mesh 64^2 ... 2048^2 cells (4K ... 4M), mesh kernel and
// CSR kernel; plus the device copy bandwidth measured in the same process, so effective GB/s of the step can be read
// as a fraction of what the memory system delivers. After the runs, a table gives that fraction for every IO-step
// benchmark (bench/copy_fraction.hpp), with a copy probe of its own for backends whose copy benchmarks were
// filtered out. --benchmark_format=json|csv prints Google Benchmark's own output only.
// On GPU backends the float mesh runs two steps per launch (the mesh-pairs GapStrategy); io_step_one_step/ is
// the same mesh with one launch per step. One-step launches go through the backend's chained launch in double (CUDA:
// programmatic dependent launch, backends/cuda/cuda_chained_launch.hpp) and Kokkos::parallel_for in float;
// io_step_kokkos_launch/ (double) and io_step_chained/ (float, one step per launch) are the other way round.
//   ns_per_cell_step   time per cell per step
//   bytes_per_second   bytes one step must move (bench/io_step_bytes.hpp) / time: a step pair moves about half
//                      of them per step, so its fraction of copy bandwidth can exceed 100 %
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "backends/copy_bandwidth.hpp"
#include "backends/registry.hpp"
#include "bench/bench_steps.hpp"
#include "bench/copy_fraction.hpp"
#include "bench/io_step_bytes.hpp"
#include "core/network/gap_network.hpp"
#include "models/olive/drivers/io_simulation.hpp"
#include "models/olive/launch/gap_strategy.hpp"

namespace {

using namespace kbrain;
using bench::steps_override;
using bench::steps_per_iteration;


// Flush-to-zero / denormals-are-zero on the calling thread (x86 MXCSR); returns the previous MXCSR (0 elsewhere).
unsigned set_flush_denormals(bool on) {
#if defined(__SSE__) || defined(__x86_64__)
  const unsigned old = _mm_getcsr();
  _mm_setcsr(on ? (old | 0x8040u) : (old & ~0x8040u));
  return old;
#else
  (void)on;
  return 0;
#endif
}

// Kernels: olive::ScalarHostKernels for the scalar host baseline. step_pairs 0: a mesh with one launch per step;
// chained_launch 0 / 1: one-step launches through Kokkos::parallel_for / the backend's chained launch (-1: the
// chooser's).
template <class Backend, class Real, class Kernels = olive::OliveKernels<Real>>
void bm_io_step(benchmark::State& state, std::int64_t side, bool mesh_kernel, bool flush_denormals = false,
                int step_pairs = -1, int chained_launch = -1) {
  using Sim = olive::IoSimulation<Backend, Real, Kernels>;
  const unsigned mxcsr = set_flush_denormals(flush_denormals);  // Serial runs on this thread (diagnostic variant)
  const GapNetwork net = make_mesh2d(side, side, 0.04);
  std::vector<double> g_cal(net.cells);
  for (std::int64_t i = 0; i < net.cells; ++i) g_cal[i] = 0.6 + 0.2 * double(i % 97) / 97.0;
  const auto network = olive::DeviceGapNetwork<Real, typename Backend::memory_space>::upload(net, mesh_kernel);
  olive::GapStrategy strategy = olive::choose_gap_strategy(Sim::choice_input(network));
  if (step_pairs == 0 && strategy.kernel == olive::GapKernel::MeshPairs) strategy.kernel = olive::GapKernel::Mesh;
  if (chained_launch >= 0) strategy.chained_launch = chained_launch == 1;
  Sim sim(olive::IoParameters{}, network, g_cal, strategy);
  const int steps = steps_per_iteration<Backend>();
  for (int n = 0; n < 20; ++n) sim.step(0.0);  // warm-up
  sim.fence();
  for (auto _ : state) {
    for (int n = 0; n < steps; ++n) sim.step(n == 0 ? 6.0 : 0.0);
    sim.fence();
  }
  const double cell_steps = double(net.cells) * steps;
  state.counters["cells"] = double(net.cells);
  state.counters["ns_per_cell_step"] =
      benchmark::Counter(cell_steps * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetBytesProcessed(static_cast<std::int64_t>(bench::io_step_bytes(net, sizeof(Real), mesh_kernel) *
                                                    steps * double(state.iterations())));
#if defined(__SSE__) || defined(__x86_64__)
  _mm_setcsr(mxcsr);
#else
  (void)mxcsr;
#endif
}

template <class Backend>
void bm_copy(benchmark::State& state, std::int64_t bytes, bool kernel) {
  const CopyBuffers<Backend> buffers(bytes);
  for (auto _ : state) kernel ? buffers.kernel_copy() : buffers.deep_copy();
  state.SetBytesProcessed(static_cast<std::int64_t>(buffers.bytes_moved() * double(state.iterations())));
}

// Copy bandwidth of a backend outside Google Benchmark (best of 10 copies of 256 MiB each way), for the fraction
// table when the copy_bandwidth benchmarks of that backend did not run.
template <class Backend>
std::vector<bench::CopyRate> probe_copy_bandwidth() {
  const auto [deep, kernel] = copy_bytes_per_second<Backend>(std::int64_t(256) << 20, 10);
  return {{Backend::name, "probe_deep_copy", deep}, {Backend::name, "probe_kernel", kernel}};
}

std::map<std::string, std::function<std::vector<bench::CopyRate>()>>& copy_probes() {
  static std::map<std::string, std::function<std::vector<bench::CopyRate>()>> probes;
  return probes;
}

// Google Benchmark's console output, plus every run's bytes/s (the median when there are repetitions).
class RateRecorder : public benchmark::ConsoleReporter {
 public:
  RateRecorder() : ConsoleReporter(isatty(fileno(stdout)) ? OO_Color : OO_None) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      const auto rate = r.counters.find("bytes_per_second");
      if (r.error_occurred || rate == r.counters.end()) continue;
      std::string name = r.benchmark_name();
      if (r.run_type == Run::RT_Aggregate) {
        if (r.aggregate_name != "median") continue;
        name = name.substr(0, name.size() - std::strlen("_median"));
      }
      rates[name] = rate->second.value;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> rates;
};

void print_copy_fractions(const std::map<std::string, double>& rates) {
  std::vector<bench::StepRate> steps;
  std::vector<bench::CopyRate> copies;
  std::set<std::string> copied, stepped;  // backends with a copy rate, with a step rate
  for (const auto& [name, rate] : rates) {
    const std::string backend = bench::name_component(name, 1);
    if (name.rfind("copy_bandwidth/", 0) == 0) {
      copies.push_back({backend, bench::name_component(name, 2), rate});
      copied.insert(backend);
    } else if (name.rfind("io_step", 0) == 0) {
      steps.push_back({name, rate});
      stepped.insert(backend);
    }
  }
  for (const std::string& b : stepped)
    if (!copied.count(b) && copy_probes().count(b))
      for (const auto& c : copy_probes()[b]()) copies.push_back(c);
  const auto rows = bench::copy_fractions(steps, copies);
  if (rows.empty()) return;
  std::printf("\nAchieved fraction of copy bandwidth: bytes the step must move per second / the fastest copy of the same "
              "backend, in this process\n%s", bench::format_fractions(rows).c_str());
}

template <class Backend>
void register_backend() {
  const std::string b = Backend::name;
  copy_probes()[b] = [] { return probe_copy_bandwidth<Backend>(); };
  // Serial/OpenMP stop at 1M cells (a 4M-cell serial step takes seconds); CUDA goes to 4M.
  std::vector<std::int64_t> sides = {64, 256, 1024};
  if (Backend::is_gpu) sides.push_back(2048);
  for (auto side : sides)
    for (bool mesh : {true, false}) {
      const std::string tag = std::to_string(side) + "x" + std::to_string(side) + (mesh ? "/mesh" : "/csr");
      benchmark::RegisterBenchmark(("io_step/" + b + "/float/" + tag).c_str(),
                                   [=](benchmark::State& s) { bm_io_step<Backend, float>(s, side, mesh); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("io_step/" + b + "/double/" + tag).c_str(),
                                   [=](benchmark::State& s) { bm_io_step<Backend, double>(s, side, mesh); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  if (Backend::is_gpu)  // the mesh with one launch per step (float runs step pairs by default; double never)
    for (std::int64_t side : {1024, 2048}) {
      const std::string tag = std::to_string(side) + "x" + std::to_string(side) + "/mesh";
      benchmark::RegisterBenchmark(("io_step_one_step/" + b + "/float/" + tag).c_str(),
                                   [=](benchmark::State& s) { bm_io_step<Backend, float>(s, side, true, false, 0); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  if (Backend::is_gpu)  // one-step launches the other way than by default: double through Kokkos::parallel_for,
    for (std::int64_t side : {1024, 2048}) {  // float through the backend's chained launch
      const std::string tag = std::to_string(side) + "x" + std::to_string(side) + "/mesh";
      benchmark::RegisterBenchmark(("io_step_kokkos_launch/" + b + "/double/" + tag).c_str(),
                                   [=](benchmark::State& s) { bm_io_step<Backend, double>(s, side, true, false, -1, 0); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("io_step_chained/" + b + "/float/" + tag + "/one_step").c_str(),
                                   [=](benchmark::State& s) { bm_io_step<Backend, float>(s, side, true, false, 0, 1); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  if (std::string(Backend::name) == "serial")  // diagnostic: the same with denormals flushed (MXCSR FTZ/DAZ)
    for (bool simd : {true, false}) {
      const std::string kind = simd ? "io_step_ftz/" : "io_step_scalar_ftz/";
      benchmark::RegisterBenchmark((kind + b + "/float/256x256/mesh").c_str(),
                                   [=](benchmark::State& s) {
                                     if (simd) bm_io_step<Backend, float>(s, 256, true, true);
                                     else bm_io_step<Backend, float, olive::ScalarHostKernels<float>>(s, 256, true, true);
                                   })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark((kind + b + "/double/256x256/mesh").c_str(),
                                   [=](benchmark::State& s) {
                                     if (simd) bm_io_step<Backend, double>(s, 256, true, true);
                                     else bm_io_step<Backend, double, olive::ScalarHostKernels<double>>(s, 256, true, true);
                                   })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  if (!Backend::is_gpu)  // the plain one-cell-per-index kernel with libm exp: the scalar baseline
    for (bool mesh : {true, false}) {
      const std::string tag = std::string("256x256") + (mesh ? "/mesh" : "/csr");
      benchmark::RegisterBenchmark(("io_step_scalar/" + b + "/float/" + tag).c_str(),
                                   [=](benchmark::State& s) { bm_io_step<Backend, float, olive::ScalarHostKernels<float>>(s, 256, mesh); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("io_step_scalar/" + b + "/double/" + tag).c_str(),
                                   [=](benchmark::State& s) { bm_io_step<Backend, double, olive::ScalarHostKernels<double>>(s, 256, mesh); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  benchmark::RegisterBenchmark(("copy_bandwidth/" + b + "/kernel/256MiB").c_str(),
                               [](benchmark::State& s) { bm_copy<Backend>(s, std::int64_t(256) << 20, true); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark(("copy_bandwidth/" + b + "/deep_copy/256MiB").c_str(),
                               [](benchmark::State& s) { bm_copy<Backend>(s, std::int64_t(256) << 20, false); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace

namespace kbrain::bench {
void register_spiking_benchmarks();
void register_cortex_benchmarks();
void register_galbraith_benchmarks();
void register_som_benchmarks();
void register_io_generated_benchmarks();
}

int main(int argc, char** argv) {
  steps_override();  // a bad KBRAIN_BENCH_STEPS stops here, before Kokkos starts or any benchmark runs
  Kokkos::ScopeGuard kokkos(argc, argv);
  for_each_backend([](auto tag) { register_backend<typename decltype(tag)::type>(); });
  kbrain::bench::register_spiking_benchmarks();  // bench_spiking.cpp
  kbrain::bench::register_io_generated_benchmarks();  // bench_io_generated.cpp
  kbrain::bench::register_cortex_benchmarks();   // bench_cortex_hh.cpp
  kbrain::bench::register_galbraith_benchmarks();  // bench_galbraith.cpp
  kbrain::bench::register_som_benchmarks();        // bench_som.cpp
  bool console = true;  // another --benchmark_format: Google Benchmark's output alone
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_format=", 19) == 0 && std::strcmp(argv[i] + 19, "console") != 0)
      console = false;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (console) {
    RateRecorder reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    print_copy_fractions(reporter.rates);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
  return 0;
}
