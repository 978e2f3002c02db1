// How the CUDA IO mesh step is launched, measured: the same step functor (io_step.hpp, one cell per thread, launch
// bounds 256 x 6) launched (1) by Kokkos::parallel_for, as kbrain does, (2) as a plain kernel, (3) as a plain
// kernel with programmatic dependent launch (Hopper: the next step's blocks are scheduled while the previous step's
// last blocks still run, and wait in cudaGridDependencySynchronize until its writes are visible), on a stream of
// its own, (4) the index loop of Kokkos' RangePolicy kernel as a plain kernel (kloop), and with PDL as kbrain's
// CudaChainedLaunch launches it, on Kokkos' stream (kloop_pdl), (5) the plain launches of a run recorded once as a
// CUDA graph and replayed. Every variant is first checked bit for bit against
// (1) after 20 steps, then timed as the median of 7 runs of 200 steps (one fence per run), interleaved.
// Same inputs as kbrain_bench's io_step benchmark. Built on demand in CUDA builds:
//   cmake --build build/cuda --target io_mesh_launch_probe && build/cuda/bench/io_mesh_launch_probe [SIDE]
#include <Kokkos_Core.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "backends/cuda/cuda_chained_launch.hpp"
#include "models/olive/gap/io_gap_junctions.hpp"
#include "models/olive/cell/io_step.hpp"

namespace {

using namespace kbrain::olive;
using Exec = Kokkos::Cuda;
using Mem = Kokkos::CudaSpace;

#define PROBE_CHECK(call)                                                                  \
  do {                                                                                     \
    const cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                     \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

template <class F>
__global__ void __launch_bounds__(256, 6) step_kernel(const F f, const int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}
template <class F>
__global__ void __launch_bounds__(256, 6) step_kernel_pdl(const F f, const int n) {
  cudaTriggerProgrammaticLaunchCompletion();  // let the next step's blocks be scheduled as this grid drains
  cudaGridDependencySynchronize();            // the previous step's writes are visible from here on
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}

// Kokkos 3.4's RangePolicy index loop (64-bit index, blocks of 1 x 256, grid-stride); with PDL it is
// CudaChainedLaunch (backends/cuda/cuda_chained_launch.hpp).
template <class F>
__global__ void __launch_bounds__(256, 6) step_kernel_kloop(const F f, const std::int64_t end) {
  const std::int64_t stride = std::int64_t(blockDim.y) * gridDim.x;
  for (std::int64_t i = threadIdx.y + std::int64_t(blockDim.y) * blockIdx.x; i < end; i = i < end - stride ? i + stride : end)
    f(static_cast<int>(i));
}
enum Launch { kKokkos, kPlain, kPdl, kKloop, kKloopPdl, kGraph, kNumLaunches };
const char* kNames[kNumLaunches] = {"kokkos", "plain", "pdl", "kloop", "kloop_pdl", "graph"};

template <class Real>
struct Probe {
  int side, n;
  StateView<Real, Mem> a, b;
  Kokkos::View<Real*, Mem> g;
  MeshGapJunctions<Real, Mem> gap;
  IoConstants<Real> constants;
  cudaStream_t stream = nullptr;

  explicit Probe(int s)
      : side(s), n(s * s), a("a", NUM_VARS, n), b("b", NUM_VARS, n), g("g_cal", n),
        gap(MeshGapJunctions<Real, Mem>::make(s, s, Real(0.04))), constants(IoConstants<Real>::make(IoParameters{})) {
    // A stream of its own for the plain, PDL and graph launches (Kokkos 3.4 launches on the legacy default stream,
    // which cannot be captured into a graph); run() fences both.
    PROBE_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    auto hg = Kokkos::create_mirror_view(g);
    for (int i = 0; i < n; ++i) hg(i) = Real(0.6 + 0.2 * double(i % 97) / 97.0);
    Kokkos::deep_copy(g, hg);
    reset();
  }
  ~Probe() { cudaStreamDestroy(stream); }
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;
  void reset() {
    auto h = Kokkos::create_mirror_view(a);
    for (int v = 0; v < NUM_VARS; ++v)
      for (int i = 0; i < n; ++i) h(v, i) = Real(kInitialState[v]);
    Kokkos::deep_copy(a, h);
    Kokkos::deep_copy(b, h);
    Kokkos::fence();
  }
  auto functor(int s, const StateView<Real, Mem>& cur, const StateView<Real, Mem>& next) const {
    IoStateBuffers<Real, Mem> state{cur, next};
    return make_step_functor<Exec, Real>(state, Kokkos::View<const Real*, Mem>(g), Kokkos::View<const Real*, Mem>(), gap,
                                         constants, s % 10 == 0 ? 6.0 : 0.0, SpikeSink<Mem>{}, Real(-20), s);
  }
  // Enqueue `steps` steps from a (even count: the result is back in a).
  void enqueue(Launch how, int steps) {
    const int blocks = (n + 255) / 256;
    for (int s = 0; s < steps; ++s) {
      const auto f = s % 2 == 0 ? functor(s, a, b) : functor(s, b, a);
      using F = std::decay_t<decltype(f)>;
      static const bool cache_configured = [] {  // as Kokkos does for kernels without shared memory
        PROBE_CHECK(cudaFuncSetCacheConfig(step_kernel<F>, cudaFuncCachePreferL1));
        PROBE_CHECK(cudaFuncSetCacheConfig(step_kernel_pdl<F>, cudaFuncCachePreferL1));
        PROBE_CHECK(cudaFuncSetCacheConfig(step_kernel_kloop<F>, cudaFuncCachePreferL1));
        return true;
      }();
      (void)cache_configured;
      if (how == kKokkos) {
        Kokkos::parallel_for("io_step", Kokkos::RangePolicy<Exec, Kokkos::LaunchBounds<256, 6>>(0, n), f);
      } else if (how == kPlain || how == kGraph) {
        step_kernel<F><<<blocks, 256, 0, stream>>>(f, n);
      } else if (how == kKloop) {
        step_kernel_kloop<F><<<blocks, dim3(1, 256), 0, stream>>>(f, std::int64_t(n));
      } else if (how == kKloopPdl) {  // the library's chained launch (on Kokkos' stream)
        kbrain::CudaChainedLaunch::parallel_for<256, 6>(f, 0, n);
      } else {
        const kbrain::detail::ProgrammaticLaunch launch(dim3(blocks), dim3(256), stream);
        PROBE_CHECK(cudaLaunchKernelEx(&launch.config, step_kernel_pdl<F>, f, n));
      }
    }
  }
  double run(Launch how, int steps) {  // seconds for `steps` steps, fenced once
    cudaGraphExec_t exec = nullptr;
    if (how == kGraph) {
      cudaGraph_t graph;
      PROBE_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      enqueue(how, steps);
      PROBE_CHECK(cudaStreamEndCapture(stream, &graph));
      PROBE_CHECK(cudaGraphInstantiate(&exec, graph, 0));
      PROBE_CHECK(cudaGraphDestroy(graph));
    }
    Kokkos::fence();
    const auto t0 = std::chrono::steady_clock::now();
    if (how == kGraph)
      PROBE_CHECK(cudaGraphLaunch(exec, stream));
    else
      enqueue(how, steps);
    Kokkos::fence();
    PROBE_CHECK(cudaStreamSynchronize(stream));
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (exec) PROBE_CHECK(cudaGraphExecDestroy(exec));
    PROBE_CHECK(cudaGetLastError());
    return t;
  }
  std::vector<Real> state_after(Launch how, int steps) {
    reset();
    run(how, steps);
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
    return std::vector<Real>(h.data(), h.data() + h.size());
  }
};

template <class Real>
void measure(int side, const char* precision) {
  Probe<Real> p(side);
  const auto reference = p.state_after(kKokkos, 20);
  for (int how = kPlain; how < kNumLaunches; ++how) {
    const auto got = p.state_after(Launch(how), 20);
    const bool same = std::memcmp(got.data(), reference.data(), got.size() * sizeof(Real)) == 0;
    std::printf("%s side %d %s: state after 20 steps %s the Kokkos launch's\n", precision, side, kNames[how],
                same ? "bit-identical to" : "DIFFERS from");
    if (!same) std::exit(1);
  }
  std::vector<double> t[kNumLaunches];
  const int steps = 200;
  for (int round = 0; round <= 7; ++round)
    for (int how = 0; how < kNumLaunches; ++how) {
      const double s = p.run(Launch(how), steps);
      if (round > 0) t[how].push_back(s / (double(p.n) * steps) * 1e9);  // round 0 warms up
    }
  for (int how = 0; how < kNumLaunches; ++how) {
    std::sort(t[how].begin(), t[how].end());
    std::printf("%s side %d %-6s median %.5f min %.5f ns/cell-step (%.2f us/step)\n", precision, side, kNames[how],
                t[how][t[how].size() / 2], t[how].front(), t[how][t[how].size() / 2] * p.n * 1e-3);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const int side = argc > 1 ? std::atoi(argv[1]) : 1024;
    measure<double>(side, "double");
    measure<float>(side, "float");
  }
  Kokkos::finalize();
}
