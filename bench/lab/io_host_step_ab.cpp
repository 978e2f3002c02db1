// The host IO mesh step alone, for A/B comparisons of source trees and compiler flags on one machine
// (scripts/lab/ab_io_host_step.sh compiles this file once per tree and flag set). Same inputs as kbrain_bench's io_step
// benchmark: reference initial state, g_CaL = 0.6 + 0.2 (i mod 97) / 97, I_app = 6 every 10th step. For float and
// double it times the SIMD chunk kernel (HostChunkTag) and the straightforward scalar kernel (one cell per index,
// libm exp) on the default host execution space (OpenMP when enabled: its thread count comes from OMP_NUM_THREADS).
// Prints, per kernel, the minimum and the median ns/cell-step of RUNS runs of STEPS steps; the minimum is the
// figure least disturbed by other tenants of a shared host.
// KERNELS=ceiling instead times what every thread can do alone in registers, no memory traffic: independent FMA
// chains and simd_exp over 64-value blocks, each thread the same work. Its time per operation at N threads over the
// 1-thread time is the host's own parallel-efficiency ceiling for compute-bound vector code (clock limits under
// load, shared cores), against which the step's efficiency is judged.
//   io_host_step_ab LABEL [SIDE] [RUNS] [STEPS] [KERNELS]   KERNELS: both (default), simd, or ceiling
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "models/olive/gap/io_gap_junctions.hpp"
#include "models/olive/cell/io_step.hpp"

namespace {

using namespace kbrain::olive;
using Exec = Kokkos::DefaultHostExecutionSpace;
using Mem = Exec::memory_space;

struct Timing {
  double min_ns, median_ns;
};

template <class Real>
Timing time_step(int side, bool simd, int runs, int steps) {
  const int n = side * side;
  StateView<Real, Mem> a("a", NUM_VARS, n), b("b", NUM_VARS, n);
  for (int v = 0; v < NUM_VARS; ++v)
    for (int i = 0; i < n; ++i) a(v, i) = b(v, i) = Real(kInitialState[v]);
  Kokkos::View<Real*, Mem> g("g_cal", n);
  for (int i = 0; i < n; ++i) g(i) = Real(0.6 + 0.2 * double(i % 97) / 97.0);
  const auto gap = MeshGapJunctions<Real, Mem>::make(side, side, Real(0.04));
  const auto constants = IoConstants<Real>::make(IoParameters{});
  IoStateBuffers<Real, Mem> state{a, b};
  std::vector<double> t;
  for (int r = 0; r <= runs; ++r) {  // run 0 warms up
    const auto t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < steps; ++s) {
      const auto f = make_step_functor<Exec, Real>(state, Kokkos::View<const Real*, Mem>(g), Kokkos::View<const Real*, Mem>(),
                                                   gap, constants, s % 10 == 0 ? 6.0 : 0.0, SpikeSink<Mem>{}, Real(-20), s);
      if (simd)
        Kokkos::parallel_for("io_step", Kokkos::RangePolicy<Exec, HostChunkTag>(0, (n + kHostChunk - 1) / kHostChunk), f);
      else
        Kokkos::parallel_for("io_step_scalar", Kokkos::RangePolicy<Exec>(0, n), f);
      state.swap();
    }
    Kokkos::fence();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) t.push_back(s / (double(n) * steps) * 1e9);
  }
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2]};
}

// Nanoseconds per value-operation (one FMA, or one simd_exp) per thread, min over runs: every thread of the host
// execution space runs `reps` passes over its own 64-value block.
template <bool Exp>
double ceiling_ns(int runs, int reps) {
  const int threads = Exec::concurrency();
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> sink("sink", threads, 64);
  double best = 1e30;
  for (int r = 0; r <= runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    Kokkos::parallel_for(
        "ceiling", Kokkos::RangePolicy<Exec>(0, threads), [=](const int t) {
          double v[64];
          for (int k = 0; k < 64; ++k) v[k] = 1e-3 * (k + t);
          for (int n = 0; n < reps; ++n) {
#pragma omp simd
            for (int k = 0; k < 64; ++k) {
              if constexpr (Exp)
                v[k] = kbrain::simd_exp(v[k]) * 0.5 - 0.25;  // stays in [-0.25, 0.25]
              else
                v[k] = kbrain::madd(v[k], 0.999999, 1e-9);
            }
          }
          for (int k = 0; k < 64; ++k) sink(t, k) = v[k];
        });
    Kokkos::fence();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) best = std::min(best, s / (64.0 * reps) * 1e9);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const char* label = argc > 1 ? argv[1] : "tree";
    const int side = argc > 2 ? std::atoi(argv[2]) : 256;
    const int runs = argc > 3 ? std::atoi(argv[3]) : 5;
    const int steps = argc > 4 ? std::atoi(argv[4]) : 20;
    const std::string kernels = argc > 5 ? argv[5] : "both";
    const bool with_scalar = kernels == "both";
    const int threads = Exec::concurrency();
    if (kernels == "ceiling")
      std::printf("%s ceiling threads %d fma %.4f exp %.4f ns/value per thread\n", label, threads,
                  ceiling_ns<false>(runs, 2000000), ceiling_ns<true>(runs, 200000));
    for (const bool simd : {true, false}) {
      if (kernels == "ceiling" || (!simd && !with_scalar)) break;
      const Timing d = time_step<double>(side, simd, runs, steps);
      const Timing f = time_step<float>(side, simd, runs, steps);
      std::printf("%s %s threads %d side %d double min %.2f median %.2f float min %.2f median %.2f ns/cell-step\n", label,
                  simd ? "simd" : "scalar", threads, side, d.min_ns, d.median_ns, f.min_ns, f.median_ns);
      std::fflush(stdout);
    }
  }
  Kokkos::finalize();
}
