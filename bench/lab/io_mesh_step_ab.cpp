// The CUDA IO mesh step alone, for A/B comparisons of two source trees on one machine (scripts/lab/ab_io_mesh_step.sh
// compiles this file once against each tree). Same inputs as kbrain_bench's io_step benchmark: reference initial
// state, g_CaL = 0.6 + 0.2 (i mod 97) / 97, I_app = 6 every 10th step, launch bounds 256 x 6. Prints the median
// ns/cell-step of 5 runs of 200 steps (one fence per run) for double and float. It fills the state itself and uses
// only the step functor's API, so that it also compiles against older trees (e113001 and later).
//   io_mesh_step_ab LABEL [SIDE]
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "models/olive/gap/io_gap_junctions.hpp"
#include "models/olive/cell/io_step.hpp"

namespace {

using namespace kbrain::olive;

template <class Real>
double median_ns_per_cell_step(int side, int steps, int runs) {
  using Exec = Kokkos::Cuda;
  using Mem = Kokkos::CudaSpace;
  const int n = side * side;
  StateView<Real, Mem> a("a", NUM_VARS, n), b("b", NUM_VARS, n);
  auto h = Kokkos::create_mirror_view(a);
  for (int v = 0; v < NUM_VARS; ++v)
    for (int i = 0; i < n; ++i) h(v, i) = Real(kInitialState[v]);
  Kokkos::deep_copy(a, h);
  Kokkos::View<Real*, Mem> g("g_cal", n);
  auto hg = Kokkos::create_mirror_view(g);
  for (int i = 0; i < n; ++i) hg(i) = Real(0.6 + 0.2 * double(i % 97) / 97.0);
  Kokkos::deep_copy(g, hg);
  const auto gap = MeshGapJunctions<Real, Mem>::make(side, side, Real(0.04));
  const auto constants = IoConstants<Real>::make(IoParameters{});
  IoStateBuffers<Real, Mem> state{a, b};
  std::vector<double> t;
  for (int r = 0; r <= runs; ++r) {  // run 0 warms up
    Kokkos::fence();
    const auto t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < steps; ++s) {
      const auto f = make_step_functor<Exec, Real>(state, Kokkos::View<const Real*, Mem>(g), Kokkos::View<const Real*, Mem>(),
                                                   gap, constants, s % 10 == 0 ? 6.0 : 0.0, SpikeSink<Mem>{}, Real(-20), s);
      Kokkos::parallel_for("io_step", Kokkos::RangePolicy<Exec, Kokkos::LaunchBounds<256, 6>>(0, n), f);
      state.swap();
    }
    Kokkos::fence();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) t.push_back(s / (double(n) * steps) * 1e9);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const char* label = argc > 1 ? argv[1] : "tree";
    const int side = argc > 2 ? std::atoi(argv[2]) : 1024;
    std::printf("%s side %d double %.5f float %.5f ns/cell-step\n", label, side,
                median_ns_per_cell_step<double>(side, 200, 5), median_ns_per_cell_step<float>(side, 200, 5));
  }
  Kokkos::finalize();
}
