// The CUDA two-step mesh kernel (models/olive/launch/io_mesh_pair.hpp), and a cell's step split into warp-sized parts
// (PartsFunctor below), against the one-step kernel on one GPU: tile rows, parts and launch bounds swept, each
// variant checked bit for bit against one-step launches after 40 steps, then timed as the median of 5 runs of 200
// steps (one fence per run). Same inputs as kbrain_bench's io_step benchmark (reference
// initial state, g_CaL = 0.6 + 0.2 (i mod 97) / 97, I_app = 6 every 10th step). Not part of the CMake build:
// scripts/lab/tune_mesh_pair.sh compiles and runs it.
//   io_mesh_pair_tune [SIDE]
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "models/olive/gap/io_gap_junctions.hpp"
#include "models/olive/launch/io_mesh_pair.hpp"
#include "models/olive/cell/io_step.hpp"

namespace {

using namespace kbrain::olive;
using Exec = Kokkos::Cuda;
using Mem = Kokkos::CudaSpace;

// Experimental: each cell's step as two or three warp-sized work items (warp w: cells 32 (w / P) .., part w mod P),
// so that a thread's work, and with it the ramp at each launch's start and end, is shorter. P = 2: gap + dendrite +
// axon | soma; P = 3: gap + dendrite | soma | axon.
template <class Real, int P>
struct PartsFunctor {
  IoStepFunctor<Exec, Real, MeshGapJunctions<Real, Mem>> f;
  int n;
  KOKKOS_INLINE_FUNCTION void operator()(const int j) const {
    const int w = j >> 5, lane = j & 31, part = w % P, i = (w / P) * 32 + lane;
    if (i >= n) return;
    const Real vd = f.cur(V_DEND, i), vs = f.cur(V_SOMA, i), va = f.cur(V_AXON, i);
    if (part == 0) {
      const Real i_c = f.gap.template current<NativeMath>(i, vd, f.cur);
      f.template dendrite<NativeMath>(f.cur, f.next, i, vd, vs, i_c, f.applied_current(i));
    }
    if ((P == 2 && part == 1) || (P == 3 && part == 1)) f.template soma<NativeMath>(f.cur, f.next, i, vd, vs, va);
    if ((P == 2 && part == 0) || (P == 3 && part == 2)) f.template axon<NativeMath>(f.cur, f.next, i, vs, va);
  }
};

template <class Real>
struct Mesh {
  int side;
  StateView<Real, Mem> a, b;
  Kokkos::View<Real*, Mem> g;
  MeshGapJunctions<Real, Mem> gap;
  IoConstants<Real> constants = IoConstants<Real>::make(IoParameters{});
  IoStateBuffers<Real, Mem> state;
  std::int64_t steps = 0;

  explicit Mesh(int s) : side(s), a("a", NUM_VARS, s * s), b("b", NUM_VARS, s * s), g("g_cal", s * s) {
    const int n = s * s;
    fill_initial_state<Exec>(a);
    fill_initial_state<Exec>(b);
    auto hg = Kokkos::create_mirror_view(g);
    for (int i = 0; i < n; ++i) hg(i) = Real(0.6 + 0.2 * double(i % 97) / 97.0);
    Kokkos::deep_copy(g, hg);
    gap = MeshGapJunctions<Real, Mem>::make(s, s, Real(0.04));
    state = IoStateBuffers<Real, Mem>{a, b};
  }
  static double i_app(std::int64_t s) { return s % 10 == 0 ? 6.0 : 0.0; }
  IoStepFunctor<Exec, Real, MeshGapJunctions<Real, Mem>> functor() const {
    return make_step_functor<Exec, Real>(state, Kokkos::View<const Real*, Mem>(g), Kokkos::View<const Real*, Mem>(),
                                         gap, constants, i_app(steps), SpikeSink<Mem>{}, Real(-20), steps);
  }
  void one_step() {
    Kokkos::parallel_for("io_step", Kokkos::RangePolicy<Exec, Kokkos::LaunchBounds<256, 6>>(0, side * side),
                         functor());
    state.swap();
    ++steps;
  }
  template <int P, unsigned MaxThreads = 256, unsigned MinBlocks = 6>
  void parts() {
    const int n = side * side, items = ((n + 31) / 32) * 32 * P;
    Kokkos::parallel_for("io_step_parts",
                         Kokkos::RangePolicy<Exec, Kokkos::LaunchBounds<MaxThreads, MinBlocks>>(0, items),
                         PartsFunctor<Real, P>{functor(), n});
    state.swap();
    ++steps;
  }
  template <class Bounds>
  void pair(int rows) {
    launch_mesh_pair<Exec, Real, Mem, Bounds>(functor(), i_app(steps + 1), rows);
    state.swap();
    steps += 2;
  }
};

template <class Real>
double median_ns(int side, const std::function<void(Mesh<Real>&)>& two_steps) {
  Mesh<Real> m(side);
  std::vector<double> t;
  const int pairs = 100;
  for (int r = 0; r <= 5; ++r) {
    Kokkos::fence();
    const auto t0 = std::chrono::steady_clock::now();
    for (int p = 0; p < pairs; ++p) two_steps(m);
    Kokkos::fence();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) t.push_back(s / (double(side) * side * 2 * pairs) * 1e9);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class Real>
long long differing(int side, const std::function<void(Mesh<Real>&)>& two_steps) {
  Mesh<Real> ref(side), m(side);
  for (int s = 0; s < 40; ++s) ref.one_step();
  for (int s = 0; s < 20; ++s) two_steps(m);
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ref.state.cur);
  auto y = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.state.cur);
  long long d = 0;
  for (int v = 0; v < NUM_VARS; ++v)
    for (int i = 0; i < side * side; ++i) d += !(x(v, i) == y(v, i));
  return d;
}

template <class Real>
void sweep(int side, const char* precision) {
  struct Variant {
    const char* name;
    std::function<void(Mesh<Real>&)> run;
  };
  const std::vector<Variant> variants = {
      {"one-step x2 (256x6)", [](Mesh<Real>& m) { m.one_step(); m.one_step(); }},
      {"parts 2 (256x6)", [](Mesh<Real>& m) { m.template parts<2>(); m.template parts<2>(); }},
      {"parts 3 (256x6)", [](Mesh<Real>& m) { m.template parts<3>(); m.template parts<3>(); }},
      {"parts 2 (256x8)", [](Mesh<Real>& m) { m.template parts<2, 256, 8>(); m.template parts<2, 256, 8>(); }},
      {"parts 3 (256x8)", [](Mesh<Real>& m) { m.template parts<3, 256, 8>(); m.template parts<3, 256, 8>(); }},
      {"pair rows 8", [](Mesh<Real>& m) { m.template pair<Kokkos::LaunchBounds<>>(8); }},
      {"pair rows 8 (256x4)", [](Mesh<Real>& m) { m.template pair<Kokkos::LaunchBounds<256, 4>>(8); }},
      {"pair rows 16 (512x2)", [](Mesh<Real>& m) { m.template pair<Kokkos::LaunchBounds<512, 2>>(16); }},
  };
  for (const auto& v : variants)
    std::printf("side %d %s %-24s %.5f ns/cell-step, %lld values differ from one-step after 40 steps\n", side,
                precision, v.name, median_ns<Real>(side, v.run), differing<Real>(side, v.run));
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const int side = argc > 1 ? std::atoi(argv[1]) : 1024;
    if (side < 3 || side > 16384) {
      std::fprintf(stderr, "io_mesh_pair_tune: SIDE '%s' is not a mesh side (3 .. 16384)\n", argv[1]);
      Kokkos::finalize();
      return 2;
    }
    sweep<double>(side, "double");
    sweep<float>(side, "float");
  }
  Kokkos::finalize();
}
