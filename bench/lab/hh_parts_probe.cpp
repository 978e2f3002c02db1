// The COBAHH neuron update alone on CUDA: one thread a neuron (HhStepFunctor through the chained launch, as
// PointNetwork launches it) with the model's options read at run time (HhAnyOptions) and fixed at compile time
// (HhCobaOptions, the product's launch for COBAHH since the options were fixed), against HhStepParts (below), the
// same four parts (gates m, h, n and the membrane) on 4 warps of a team (a part a warp). Questions (issue 25: COBAHH
// 4000 double at 8.57 µs a step, float 7.23): does fixing the options (no branches between the exponentials) shorten
// the kernel, and with the same bits? Does spreading the parts over four schedulers (answered 2026-11-28: no)?
// µs per launch over back-to-back launches (each launch's duration plus the gap between two), and the bits of
// every variant after one step from the same state against the options-read variant's.
//   hh_parts_probe [N ...]   (default 4000 64000 1000000), float and double
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/cuda/cuda_backend.hpp"
#include "backends/range_launch.hpp"
#include "models/point/hh_step.hpp"
#include "models/point/point_parameters.hpp"
#include "tests/device_views.hpp"

namespace {

using namespace kbrain;
using Exec = Kokkos::Cuda;
using Mem = Kokkos::CudaSpace;

// HhStepFunctor's four parts on the threads of a team: `lanes` neurons a team, team_size / lanes groups of lanes
// threads, group g taking parts g, g + groups, ... (one part a warp with teams of 4 x 32 on GPUs, where a neuron's
// ten exponentials then run on four schedulers instead of one; all four in one thread with teams of one). Every
// thread reads its neuron's v, m, h, n before the team's barrier and writes only after it, so no part sees another's
// result: the bits of HhStepFunctor. publish_clock: this is the step's first kernel (spiking::FirstKernelOfStep).
template <class Real>
struct HhStepParts {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  point::HhStepFunctor<Exec, Real> step;
  int neurons = 0, lanes = 1;
  bool publish_clock = false;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int groups = team.team_size() / lanes, group = team.team_rank() / lanes, lane = team.team_rank() % lanes;
    const int i = team.league_rank() * lanes + lane;
    const bool live = i < neurons && group < groups;
    if (publish_clock && team.league_rank() == 0 && team.team_rank() == 0) step.in.clock.publish();
    Real v = 0, m = 0, h = 0, n = 0;
    if (live) {
      v = step.s.v(i);
      m = step.s.m(i);
      h = step.s.h(i);
      n = step.s.n(i);
    }
    team.team_barrier();  // the whole team has read the state at the step's start
    if (!live) return;
    for (int part = group; part < 4; part += groups) {
      const bool exponential = point::HhAnyOptions::exponential(step.c);
      if (part == 0) step.s.m(i) = point::hh_m_next(v, m, step.c, exponential);
      if (part == 1) step.s.h(i) = point::hh_h_next(v, h, step.c, exponential);
      if (part == 2) step.s.n(i) = point::hh_n_next(v, n, step.c, exponential);
      if (part == 3) step.membrane(i, v, m, h, n);
    }
  }
};

template <class Real>
point::HhStepFunctor<Exec, Real> make_step(int n) {
  point::PointState<Real, Mem> st;
  auto view = [&](const char* name, double lo, double hi, int salt) {
    return test::counter_view<Real, Mem>(name, n, lo, hi, salt);
  };
  // the COBAHH benchmark's regime: voltages around rest, gates near their rest values, some conductance
  st.v = view("v", -70.0, -50.0, 0);
  st.m = view("m", 0.0, 0.1, 1);
  st.h = view("h", 0.5, 1.0, 2);
  st.n = view("n", 0.0, 0.4, 3);
  st.ge = view("ge", 0.0, 5.0, 4);
  st.gi = view("gi", 0.0, 30.0, 5);
  st.last_spike = Kokkos::View<int*, Mem>("last_spike", n);
  Kokkos::deep_copy(st.last_spike, -1000000);
  point::StepInputs<Real, Mem> in;
  in.ring = Kokkos::View<long long**, Kokkos::LayoutRight, Mem>("ring", 2, n);
  in.i_ext = Kokkos::View<Real*, Mem>("i_ext", n);
  in.noise_sd = Kokkos::View<Real*, Mem>("noise_sd", n);
  in.clock = spiking::make_step_clock<Mem>(0);
  in.spikes.flags = Kokkos::View<int*, Mem>("flags", n);
  in.spikes.neurons = n;
  return point::HhStepFunctor<Exec, Real>{st, in, point::HhConstants<Real>::make(point::point_parameter_set("cobahh").params)};
}

// What a variant launches: -1 the product's range with the options read at run time (HhAnyOptions), 0 with them
// fixed (HhCobaOptions, what the product launches for COBAHH), else teams of `groups` warps of 32 neurons.
// The launches here follow each other with nothing between, so the product's prologue (the gates before the
// chained launch's wait) would read what the launch before writes: the probe launches the whole step after the wait.
template <class F>
struct WholeStep {
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { f(i); }
};
template <class F>
void launch_whole(const char* name, int n, const F& f) {
  launch_range<CudaBackend>(Exec(), name, n, WholeStep<spiking::FirstKernelOfStep<F, Mem>>{{f, f.in.clock}});
}

template <class Real>
void launch(const point::HhStepFunctor<Exec, Real>& f, int n, int groups) {
  if (groups == -1) {
    launch_whole("hh_one", n, f);
    return;
  }
  if (groups == 0) {
    using Fixed = point::HhStepFunctor<Exec, Real, point::HhCobaOptions>;
    launch_whole("hh_fixed", n, Fixed{f.s, f.in, f.c});
    return;
  }
  Kokkos::parallel_for("hh_parts", kx::light_weight(Kokkos::TeamPolicy<Exec>((n + 31) / 32, 32 * groups)),
                       HhStepParts<Real>{f, n, 32, true});
}

template <class View>
int differing(const View& a, const View& b) {
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  int d = 0;
  for (std::size_t i = 0; i < ha.extent(0); ++i) d += !(ha(i) == hb(i));
  return d;
}
template <class Real>
int differing(const point::HhStepFunctor<Exec, Real>& a, const point::HhStepFunctor<Exec, Real>& b) {
  return differing(a.s.v, b.s.v) + differing(a.s.m, b.s.m) + differing(a.s.h, b.s.h) + differing(a.s.n, b.s.n) +
         differing(a.s.ge, b.s.ge) + differing(a.s.gi, b.s.gi) + differing(a.in.spikes.flags, b.in.spikes.flags);
}

template <class Real>
void run(int n) {
  const char* names[] = {"a thread a neuron, options read", "a thread a neuron, COBAHH's fixed", "parts, 4 warps a team"};
  const int groups[] = {-1, 0, 4};
  const auto reference = make_step<Real>(n);
  launch(reference, n, -1);
  for (int v = 0; v < 3; ++v) {
    const auto f = make_step<Real>(n);
    launch(f, n, groups[v]);  // one step from the same state: the bits
    Kokkos::fence();
    const int bad = differing(reference, f);
    constexpr int kLaunches = 20000;
    double best = 1e30;
    for (int round = 0; round < 3; ++round) {
      Kokkos::fence();
      const auto t0 = std::chrono::steady_clock::now();
      for (int k = 0; k < kLaunches; ++k) launch(f, n, groups[v]);
      Kokkos::fence();
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::printf("%s n %d %-30s %7.3f us per launch, values differing from options read after one step: %d\n",
                sizeof(Real) == 4 ? "float " : "double", n, names[v], best / kLaunches * 1e6, bad);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    std::vector<int> sizes;
    for (int a = 1; a < argc; ++a)
      if (argv[a][0] != '-') sizes.push_back(std::atoi(argv[a]));
    if (sizes.empty()) sizes = {4000, 64000, 1000000};
    for (const int n : sizes) {
      run<float>(n);
      run<double>(n);
    }
  }
  Kokkos::finalize();
  return 0;
}
