// Point neurons on every backend: LIF against its analytic firing rate and across integrators, HH and Izhikevich
// behaviour under constant drive, and single-neuron traces identical to Serial on the CPU backends.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/launch_prologue.hpp"
#include "backends/range_launch.hpp"
#include "backends/serial/serial_backend.hpp"
#include "models/point/hh_step.hpp"
#include "models/point/izhikevich_step.hpp"
#include "models/point/lif_step.hpp"
#include "models/point/point_parameters.hpp"
#include "models/point/point_network.hpp"
#include "tests/backend_types.hpp"
#include "tests/device_views.hpp"
#include "tests/spiking_test_support.hpp"

namespace {

using namespace kbrain;
using point::Integrator;

// Steps between spikes of the discrete LIF (exact integration): frozen refractory steps + steps to cross.
double lif_analytic_rate_hz(double i_pa) {
  const double tau = 20.0, v_inf = -60.0 + i_pa / 10.0, dt = 0.1;
  const double t_cross = tau * std::log((v_inf - -60.0) / (v_inf - -50.0));
  const double isi_steps = std::ceil(t_cross / dt - 1e-9) + 50 - 1;  // reset at spike step; frozen 49 steps
  return 1000.0 / (isi_steps * dt);
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) m = std::fmax(m, std::fabs(a[i] - b[i]));
  return m;
}

}  // namespace

TEST_SUITE("point_neurons") {
  TEST_CASE("exprel is continuous through 0 and matches x / (exp(x) - 1) away from it") {
    CHECK(point::exprel(0.0) == 1.0);
    CHECK(std::fabs(point::exprel(1e-12) - 1.0) < 1e-11);
    CHECK(std::fabs(point::exprel(-1e-7) - (std::exp(-1e-7) - 1) / -1e-7) < 1e-8);
    CHECK(std::fabs(1.0 / point::exprel(2.0) - 2.0 / (std::exp(2.0) - 1)) < 1e-15);
  }

  TEST_CASE_TEMPLATE_DEFINE("LIF under constant drive fires at the analytic rate; integrators agree", Backend,
                            lif_rate) {
    for (double i_pa : {150.0, 300.0}) {
      CAPTURE(i_pa);
      const auto exact = test::run_point<Backend, double>(test::single_neuron("lif", i_pa, Integrator::Exact, 0.1),
                                                          10000, true);
      const double rate = double(exact.spikes.size());  // over 1 s
      CHECK(std::fabs(rate - lif_analytic_rate_hz(i_pa)) <= 1.0);
      const auto rk4 =
          test::run_point<Backend, double>(test::single_neuron("lif", i_pa, Integrator::Rk4, 0.1), 10000, true);
      CHECK(rk4.spikes == exact.spikes);
      CHECK(max_abs_diff(rk4.trace, exact.trace) < 1e-6);
      const auto euler =
          test::run_point<Backend, double>(test::single_neuron("lif", i_pa, Integrator::Euler, 0.1), 10000, true);
      CHECK(std::fabs(double(euler.spikes.size()) - rate) <= 0.02 * rate + 1);
      CHECK(max_abs_diff(euler.trace, exact.trace) > 1e-6);  // a different method, visibly
    }
    const auto silent = test::run_point<Backend, double>(test::single_neuron("lif", 90.0, Integrator::Exact, 0.1), 5000);
    CHECK(silent.spikes.empty());  // v_inf = -51 mV stays below threshold
  }
  TEST_CASE_TEMPLATE_APPLY(lif_rate, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("single-neuron traces match Serial (bit-identical on CPU backends)", Backend,
                            single_matches_serial) {
    struct Case {
      const char* set;
      double current;
      Integrator integrator;
      double dt;
    };
    for (const Case& c : {Case{"coba", 250.0, Integrator::Euler, 0.1}, Case{"cobahh", 200.0, Integrator::ExponentialEuler, 0.1},
                          Case{"izhikevich2003", 10.0, Integrator::NetM, 1.0}, Case{"izhikevich2003", 10.0, Integrator::Euler, 0.1}}) {
      CAPTURE(std::string(c.set));
      const auto setup = test::single_neuron(c.set, c.current, c.integrator, c.dt);
      const auto ref = test::run_point<SerialBackend, double>(setup, 2000, true);
      const auto got = test::run_point<Backend, double>(setup, 2000, true);
      CHECK(ref.spikes.size() >= 3);
      if (Backend::is_gpu) {
        // The device's exp/FMA differ in the last bits: a threshold crossing may move by one step, and with
        // threshold-reset models (LIF, Izhikevich) each shifted reset carries into the next interval. So: the traces
        // agree up to the first spike, the first spike is within one step, and the spike counts within 5 %.
        REQUIRE(!got.spikes.empty());
        CHECK(std::llabs(static_cast<long long>(got.spikes[0].first) - static_cast<long long>(ref.spikes[0].first)) <= 1);
        CHECK(std::fabs(double(got.spikes.size()) - double(ref.spikes.size())) <= std::fmax(1.0, 0.05 * ref.spikes.size()));
        const std::size_t upto = std::min<std::size_t>(ref.trace.size(), static_cast<std::size_t>(ref.spikes.front().first));
        double before_first = 0;
        for (std::size_t k = 0; k < upto; ++k) before_first = std::fmax(before_first, std::fabs(ref.trace[k] - got.trace[k]));
        CHECK(before_first < 1e-6);
      } else {
        CHECK(ref.trace == got.trace);
        CHECK(ref.spikes == got.spikes);
      }
    }
  }
  TEST_CASE_TEMPLATE_APPLY(single_matches_serial, KBRAIN_TEST_BACKENDS);

  TEST_CASE("HH: rate grows with drive, spikes are full action potentials, refractoriness blocks re-detection") {
    std::vector<std::size_t> counts;
    for (double i_pa : {0.0, 100.0, 400.0}) {
      const auto r = test::run_point<SerialBackend, double>(
          test::single_neuron("cobahh", i_pa, Integrator::ExponentialEuler, 0.1), 10000, true);
      counts.push_back(r.spikes.size());
      double peak = -1e9;
      for (double v : r.trace) peak = std::fmax(peak, v);
      if (!r.spikes.empty()) CHECK(peak > 0.0);
      for (std::size_t k = 1; k < r.spikes.size(); ++k) CHECK(r.spikes[k].first - r.spikes[k - 1].first >= 30);
    }
    CHECK(counts[1] > counts[0]);
    CHECK(counts[2] > counts[1]);
  }

  TEST_CASE_TEMPLATE_DEFINE("alpha synapses: after one spike the conductance is w (t/tau) e^(1 - t/tau), both "
                            "receptors", Backend, alpha_synapse) {
    // Neurons 0 (exc) and 1 (inh) start above threshold, spike in the first update and never again (no drive);
    // each has one synapse onto neuron 2. Arrivals enter the next update, so after update k the conductance has
    // evolved for k dt.
    struct Case {
      const char* set;
      Integrator integrator;
      double v_above;  // a start above threshold: one spike in the first update
    };
    for (const Case& k : {Case{"coba", Integrator::Rk4, -40.0}, Case{"coba", Integrator::ExponentialEuler, -40.0},
                          Case{"cobahh", Integrator::ExponentialEuler, 0.0}}) {
    point::NamedSet set = point::point_parameter_set(k.set);
    set.params.synapse = point::SynapseKind::ConductanceAlpha;
    spiking::NetworkSpec ns = point::named_network(set, 3, 1);
    ns.connectivity = "none";
    ns.excitatory = 1;
    const double w_e = 2.0, w_i = 3.0, dt = set.params.dt;
    const Integrator integrator = k.integrator;
    {
      CAPTURE(k.set);
      CAPTURE(static_cast<int>(integrator));
      set.params.integrator = integrator;
      point::PointSetup setup = point::make_point_setup(set.params, set.initial, ns, point::DriveSpec{});
      spiking::SynapseNetwork& net = setup.given_network.emplace();
      net.neurons = 3;
      net.offsets = {0, 1, 2, 2};
      net.target = {2, 2};
      net.weight = {w_e, w_i};
      net.delay = {0, 0};
      net.receptor = {0, 1};
      setup.initial[point::V] = {k.v_above, k.v_above, -65.0};
      for (int var : {point::GE, point::GI, point::XE, point::XI}) setup.initial[var] = {0.0, 0.0, 0.0};
      point::PointNetworkSimulation<Backend, double> sim(setup);
      sim.enable_spike_log();
      double err_e = 0, err_i = 0, peak_e = 0, peak_t = 0;
      for (int k = 0; k <= 400; ++k) {
        sim.step();
        const double ge = sim.variable(point::GE)[2], gi = sim.variable(point::GI)[2];
        const double t = k * dt;
        const double ae = w_e * t / set.params.tau_e * std::exp(1 - t / set.params.tau_e);
        const double ai = w_i * t / set.params.tau_i * std::exp(1 - t / set.params.tau_i);
        err_e = std::fmax(err_e, std::fabs(ge - ae) / w_e);
        err_i = std::fmax(err_i, std::fabs(gi - ai) / w_i);
        if (ge > peak_e) {
          peak_e = ge;
          peak_t = t;
        }
      }
      auto spikes = sim.drain_spikes();
      // neurons 0 and 1 spike once, in the first update (the HH neuron 2 may fire later: its conductances do not
      // depend on it)
      spikes.erase(std::remove_if(spikes.begin(), spikes.end(), [](const auto& e) { return e.second == 2; }),
                   spikes.end());
      REQUIRE(spikes.size() == 2);
      CHECK(spikes[0] == std::pair<std::int64_t, std::int64_t>(1, 0));
      CHECK(spikes[1] == std::pair<std::int64_t, std::int64_t>(1, 1));
      CHECK(peak_t == doctest::Approx(set.params.tau_e).epsilon(0.03));
      if (integrator == Integrator::Rk4) {
        CHECK(err_e < 1e-6);
        CHECK(err_i < 1e-6);
      } else {  // exponential Euler freezes x over a step: first order in dt / tau
        CHECK(err_e < dt / set.params.tau_e);
        CHECK(err_i < dt / set.params.tau_i);
        CHECK(err_e > 1e-6);  // ... and is measurably not exact: the check above can tell the two apart
      }
    }
    }
  }
  TEST_CASE_TEMPLATE_APPLY(alpha_synapse, KBRAIN_TEST_BACKENDS);

  // The HH step with COBAHH's options fixed at compile time (HhCobaOptions, what a COBAHH network launches) computes
  // the expressions of the options read at run time (HhAnyOptions), so the same bits on every backend (on GPUs too:
  // the compiler must not contract them differently). One step from the same state: voltages from rest to above
  // threshold (so some neurons spike), gates and conductances spread, arrivals in the ring for every third neuron.
  // chained: launched as a network launches its first kernel of a step (launch_range: on CUDA the chained launch,
  // where the gates are the prologue before its wait), else by Kokkos::parallel_for (the whole step after it).
  template <class Exec, class Real, class Options, class Backend = void>
  point::HhStepFunctor<Exec, Real, Options> hh_one_step(int n) {
    using Mem = typename Exec::memory_space;
    point::PointState<Real, Mem> st;
    const auto view = [&](const char* name, double lo, double hi, int salt) {
      return test::counter_view<Real, Mem>(name, n, lo, hi, salt);
    };
    st.v = view("v", -75.0, 10.0, 0);
    st.m = view("m", 0.0, 0.9, 1);
    st.h = view("h", 0.1, 1.0, 2);
    st.n = view("n", 0.0, 0.8, 3);
    st.ge = view("ge", 0.0, 5.0, 4);
    st.gi = view("gi", 0.0, 30.0, 5);
    st.last_spike = Kokkos::View<int*, Mem>("last_spike", n);
    Kokkos::deep_copy(st.last_spike, -1000000);
    point::StepInputs<Real, Mem> in;
    in.ring = Kokkos::View<long long**, Kokkos::LayoutRight, Mem>("ring", 2, n);
    auto ring = Kokkos::create_mirror_view(in.ring);
    for (int i = 0; i < n; i += 3) ring(0, i) = 1000 + i, ring(1, i) = 7 * i;
    Kokkos::deep_copy(in.ring, ring);
    in.inv_scale[0] = 1e-3;
    in.inv_scale[1] = 2e-3;
    in.i_ext = view("i_ext", 0.0, 0.5, 6);
    in.noise_sd = Kokkos::View<Real*, Mem>("noise_sd", n);
    in.clock = spiking::make_step_clock<Mem>(5);
    in.spikes.flags = Kokkos::View<int*, Mem>("flags", n);
    in.spikes.neurons = n;
    const point::HhStepFunctor<Exec, Real, Options> step{st, in, point::HhConstants<Real>::make(point::point_parameter_set("cobahh").params)};
    if constexpr (std::is_void_v<Backend>)
      Kokkos::parallel_for("hh_step", Kokkos::RangePolicy<Exec>(0, n), step);
    else
      launch_range<Backend>(Exec(), "hh_step", n, spiking::FirstKernelOfStep<decltype(step), Mem>{step, in.clock});
    Kokkos::fence();
    return step;
  }

  // Two HH steps from the same state left the same bits in every variable the step writes.
  template <class A, class B>
  void check_same_step(const A& a, const B& b) {
    CHECK(test::same_bits(a.s.v, b.s.v));
    CHECK(test::same_bits(a.s.m, b.s.m));
    CHECK(test::same_bits(a.s.h, b.s.h));
    CHECK(test::same_bits(a.s.n, b.s.n));
    CHECK(test::same_bits(a.s.ge, b.s.ge));
    CHECK(test::same_bits(a.s.gi, b.s.gi));
    CHECK(test::same_bits(a.in.spikes.flags, b.in.spikes.flags));
    CHECK(test::same_bits(a.s.last_spike, b.s.last_spike));
  }

  TEST_CASE_TEMPLATE_DEFINE("HH with COBAHH's options fixed gives the options-read bits", Backend, hh_fixed_options) {
    using Exec = typename Backend::execution_space;
    const auto check = [](auto real) {
      using Real = decltype(real);
      constexpr int n = 999;
      REQUIRE(point::has_coba_options(point::HhConstants<Real>::make(point::point_parameter_set("cobahh").params)));
      const auto read = hh_one_step<Exec, Real, point::HhAnyOptions>(n);
      const auto fixed = hh_one_step<Exec, Real, point::HhCobaOptions>(n);
      check_same_step(read, fixed);
      // the step did something: some neurons spiked, and the arrivals were taken from the ring
      const auto flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fixed.in.spikes.flags);
      const auto ring = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fixed.in.ring);
      int spikes = 0;
      long long left = 0;
      for (int i = 0; i < n; ++i) spikes += flags(i), left += ring(0, i) + ring(1, i);
      CHECK(spikes > 0);
      CHECK(spikes < n);
      CHECK(left == 0);
    };
    check(double{});
    check(float{});
  }
  TEST_CASE_TEMPLATE_APPLY(hh_fixed_options, KBRAIN_TEST_BACKENDS);

  // The product's launch of the COBAHH step (options fixed, through the backend's range launch: on CUDA from Hopper
  // on, the gates before the chained launch's wait and the membrane after it) against the whole step in one
  // Kokkos::parallel_for: the same bits.
  TEST_CASE_TEMPLATE_DEFINE("HH split at the chained launch's wait gives the whole step's bits", Backend,
                            hh_chained_prologue) {
    using Exec = typename Backend::execution_space;
    static_assert(has_prologue<spiking::FirstKernelOfStep<point::HhStepFunctor<Exec, double, point::HhCobaOptions>,
                                                          typename Exec::memory_space>>);
    const auto check = [](auto real) {
      using Real = decltype(real);
      constexpr int n = 999;
      const auto whole = hh_one_step<Exec, Real, point::HhCobaOptions>(n);
      const auto split = hh_one_step<Exec, Real, point::HhCobaOptions, Backend>(n);
      check_same_step(whole, split);
      // the step was taken: the clock's later word was published (5), and the gates moved
      const auto words = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), split.in.clock.words);
      CHECK(words(1) == 5);
      const auto start_m = test::counter_view<Real, typename Exec::memory_space>("m", n, 0.0, 0.9, 1);
      CHECK_FALSE(test::same_bits(split.s.m, start_m));
    };
    check(double{});
    check(float{});
  }
  TEST_CASE_TEMPLATE_APPLY(hh_chained_prologue, KBRAIN_TEST_BACKENDS);

  // One LIF step from a spread state (voltages from below rest to above threshold, every fourth neuron refractory,
  // arrivals in the ring for every third), with the parameter set `set` and integrator `integrator`. Chunked: the
  // host backends' launch (chunks of kHostChunk neurons, each one vector loop), else one neuron per index.
  template <class Exec, class Real, class Options, bool Chunked>
  point::LifStepFunctor<Exec, Real, Options> lif_one_step(int n, const char* set, Integrator integrator) {
    using Mem = typename Exec::memory_space;
    point::PointParameters params = point::point_parameter_set(set).params;
    params.integrator = integrator;
    point::PointState<Real, Mem> st;
    st.v = test::counter_view<Real, Mem>("v", n, -75.0, -45.0, 0);
    st.ge = test::counter_view<Real, Mem>("ge", n, 0.0, 5.0, 4);
    st.gi = test::counter_view<Real, Mem>("gi", n, 0.0, 30.0, 5);
    st.last_spike = Kokkos::View<int*, Mem>("last_spike", n);
    auto last = Kokkos::create_mirror_view(st.last_spike);
    for (int i = 0; i < n; ++i) last(i) = i % 4 == 0 ? 3 : -1000000;
    Kokkos::deep_copy(st.last_spike, last);
    point::StepInputs<Real, Mem> in;
    in.ring = Kokkos::View<long long**, Kokkos::LayoutRight, Mem>("ring", 2, n);
    auto ring = Kokkos::create_mirror_view(in.ring);
    for (int i = 0; i < n; i += 3) ring(0, i) = 1000 + i, ring(1, i) = 7 * i;
    Kokkos::deep_copy(in.ring, ring);
    in.inv_scale[0] = 1e-3;
    in.inv_scale[1] = 2e-3;
    in.i_ext = test::counter_view<Real, Mem>("i_ext", n, 0.0, 300.0, 6);
    in.noise_sd = Kokkos::View<Real*, Mem>("noise_sd", n);
    in.noisy = false;
    in.clock = spiking::make_step_clock<Mem>(5);
    in.spikes.flags = Kokkos::View<int*, Mem>("flags", n);
    in.spikes.neurons = n;
    const point::LifStepFunctor<Exec, Real, Options> step{st, in, point::LifConstants<Real>::make(params)};
    if constexpr (Chunked)
      Kokkos::parallel_for("lif_step", Kokkos::RangePolicy<Exec, point::LifChunkTag>(0, (n + point::kHostChunk - 1) / point::kHostChunk), step);
    else
      Kokkos::parallel_for("lif_step", Kokkos::RangePolicy<Exec>(0, n), step);
    Kokkos::fence();
    return step;
  }

  // The LIF step with COBA's or CUBA's options fixed at compile time computes the expressions of the options read
  // at run time, and the host backends' chunked vector loop the per-neuron step's: the same bits, for every
  // integrator the options read (the fixed ones where they apply).
  TEST_CASE_TEMPLATE_DEFINE("LIF: fixed options and the host's chunked step give the per-neuron step's bits", Backend,
                            lif_fixed_options) {
    using Exec = typename Backend::execution_space;
    constexpr bool host = !Backend::is_gpu;
    const auto same = [](const auto& a, const auto& b) {
      CHECK(test::same_bits(a.s.v, b.s.v));
      CHECK(test::same_bits(a.s.ge, b.s.ge));
      CHECK(test::same_bits(a.s.gi, b.s.gi));
      CHECK(test::same_bits(a.s.last_spike, b.s.last_spike));
      CHECK(test::same_bits(a.in.spikes.flags, b.in.spikes.flags));
    };
    const auto check = [&](auto real, auto options, const char* set, Integrator fixed) {
      using Real = decltype(real);
      using Options = decltype(options);
      constexpr int n = 999;
      REQUIRE(point::LifConstants<Real>::make(point::point_parameter_set(set).params).synapse ==
              Options::synapse(point::LifConstants<Real>{}));
      const auto read = lif_one_step<Exec, Real, point::LifAnyOptions, false>(n, set, fixed);
      same(read, lif_one_step<Exec, Real, Options, false>(n, set, fixed));
      if constexpr (host) same(read, lif_one_step<Exec, Real, Options, true>(n, set, fixed));
      for (Integrator integrator : {Integrator::Euler, Integrator::ExponentialEuler, Integrator::Exact, Integrator::Rk4}) {
        CAPTURE(static_cast<int>(integrator));
        const auto any = lif_one_step<Exec, Real, point::LifAnyOptions, false>(n, set, integrator);
        if constexpr (host) same(any, lif_one_step<Exec, Real, point::LifAnyOptions, true>(n, set, integrator));
        // the step did something: some neurons spiked, none of the refractory ones, and the arrivals were taken
        const auto flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), any.in.spikes.flags);
        const auto ring = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), any.in.ring);
        int spikes = 0, refractory_spikes = 0;
        long long left = 0;
        for (int i = 0; i < n; ++i) spikes += flags(i), refractory_spikes += i % 4 == 0 && flags(i), left += ring(0, i) + ring(1, i);
        CHECK(spikes > 0);
        CHECK(spikes < n);
        CHECK(refractory_spikes == 0);
        CHECK(left == 0);
      }
    };
    check(double{}, point::LifCobaOptions{}, "coba", Integrator::Euler);
    check(float{}, point::LifCobaOptions{}, "coba", Integrator::Euler);
    check(double{}, point::LifCubaOptions{}, "cuba", Integrator::Exact);
    check(float{}, point::LifCubaOptions{}, "cuba", Integrator::Exact);
  }
  TEST_CASE_TEMPLATE_APPLY(lif_fixed_options, KBRAIN_TEST_BACKENDS);

  // One Izhikevich step from a spread state (some neurons above the peak after the step), arrivals in the ring for
  // every third neuron, by the host backends' chunked launch or one neuron per index.
  template <class Exec, class Real, bool Chunked>
  point::IzhikevichStepFunctor<Exec, Real> izhikevich_one_step(int n, Integrator integrator) {
    using Mem = typename Exec::memory_space;
    point::PointState<Real, Mem> st;
    st.v = test::counter_view<Real, Mem>("v", n, -70.0, 29.0, 0);
    st.u = test::counter_view<Real, Mem>("u", n, -15.0, 5.0, 1);
    st.a = test::counter_view<Real, Mem>("a", n, 0.02, 0.1, 2);
    st.b = test::counter_view<Real, Mem>("b", n, 0.2, 0.25, 3);
    st.c = test::counter_view<Real, Mem>("c", n, -65.0, -50.0, 4);
    st.d = test::counter_view<Real, Mem>("d", n, 2.0, 8.0, 5);
    st.last_spike = Kokkos::View<int*, Mem>("last_spike", n);
    point::StepInputs<Real, Mem> in;
    in.ring = Kokkos::View<long long**, Kokkos::LayoutRight, Mem>("ring", 2, n);
    auto ring = Kokkos::create_mirror_view(in.ring);
    for (int i = 0; i < n; i += 3) ring(0, i) = 1000 + 3 * i;
    Kokkos::deep_copy(in.ring, ring);
    in.inv_scale[0] = 1e-3;
    in.i_ext = test::counter_view<Real, Mem>("i_ext", n, 0.0, 10.0, 6);
    in.noise_sd = Kokkos::View<Real*, Mem>("noise_sd", n);
    in.noisy = false;
    in.clock = spiking::make_step_clock<Mem>(5);
    in.spikes.flags = Kokkos::View<int*, Mem>("flags", n);
    in.spikes.neurons = n;
    const point::IzhikevichStepFunctor<Exec, Real> step{st, in, Real(1), Real(30), static_cast<int>(integrator)};
    if constexpr (Chunked)
      Kokkos::parallel_for("izh_step", Kokkos::RangePolicy<Exec, point::IzhikevichChunkTag>(0, (n + point::kHostChunk - 1) / point::kHostChunk), step);
    else
      Kokkos::parallel_for("izh_step", Kokkos::RangePolicy<Exec>(0, n), step);
    Kokkos::fence();
    return step;
  }

  TEST_CASE_TEMPLATE_DEFINE("Izhikevich: the host's chunked step gives the per-neuron step's bits", Backend,
                            izhikevich_chunked) {
    using Exec = typename Backend::execution_space;
    if constexpr (!Backend::is_gpu) {
      const auto check = [](auto real, Integrator integrator) {
        using Real = decltype(real);
        constexpr int n = 999;
        const auto one = izhikevich_one_step<Exec, Real, false>(n, integrator);
        const auto chunked = izhikevich_one_step<Exec, Real, true>(n, integrator);
        CHECK(test::same_bits(one.s.v, chunked.s.v));
        CHECK(test::same_bits(one.s.u, chunked.s.u));
        CHECK(test::same_bits(one.s.last_spike, chunked.s.last_spike));
        CHECK(test::same_bits(one.in.spikes.flags, chunked.in.spikes.flags));
        const auto flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), chunked.in.spikes.flags);
        const auto ring = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), chunked.in.ring);
        int spikes = 0;
        long long left = 0;
        for (int i = 0; i < n; ++i) spikes += flags(i), left += ring(0, i);
        CHECK(spikes > 0);
        CHECK(spikes < n);
        CHECK(left == 0);
      };
      for (Integrator integrator : {Integrator::NetM, Integrator::Euler}) {
        check(double{}, integrator);
        check(float{}, integrator);
      }
    }
  }
  TEST_CASE_TEMPLATE_APPLY(izhikevich_chunked, KBRAIN_TEST_BACKENDS);

  TEST_CASE("HH M current: p settles at p_inf(v) at rest, and the current makes the neuron adapt") {
    const auto p_inf = [](double v) { return 1.0 / (1.0 + std::exp(-(v + 35.0) / 10.0)); };
    // At rest (no drive) v and p become constant; p must equal p_inf(v) of the Yamada kinetics.
    auto rest = test::single_neuron("cobahh", 0.0, Integrator::ExponentialEuler, 0.1);
    rest.params.g_m = 50.0;
    point::PointNetworkSimulation<SerialBackend, double> sim(rest);
    for (int k = 0; k < 30000; ++k) sim.step();  // 3 s >> tau_p(-60 mV) ~ 0.2 s
    const double v = sim.variable(point::V)[0], p = sim.variable(point::P)[0];
    CHECK(p > 0.0);
    CHECK(p == doctest::Approx(p_inf(v)).epsilon(1e-6));
    // Under a constant drive the M current lengthens the inter-spike intervals; without it they stay constant.
    const auto isi_ratio = [](double g_m) {
      auto s = test::single_neuron("cobahh", 200.0, Integrator::ExponentialEuler, 0.1);
      s.params.g_m = g_m;
      const auto r = test::run_point<SerialBackend, double>(s, 20000);
      REQUIRE(r.spikes.size() >= 4);
      const double first = double(r.spikes[1].first - r.spikes[0].first);
      const double last = double(r.spikes.back().first - r.spikes[r.spikes.size() - 2].first);
      return last / first;
    };
    const double plain = isi_ratio(0.0), adapting = isi_ratio(50.0);
    CAPTURE(plain);
    CAPTURE(adapting);
    CHECK(plain < 1.05);
    CHECK(adapting > 1.3);
  }

  TEST_CASE("operations and bytes: Izhikevich states 25 (net.m) or 15 (Euler) per neuron update, LIF none") {
    for (const auto integrator : {Integrator::NetM, Integrator::Euler}) {
      auto setup = test::single_neuron("izhikevich2003", 10.0, integrator, 0.5);
      point::PointNetworkSimulation<SerialBackend, float> sim(setup);
      for (int n = 0; n < 40; ++n) sim.step();
      CHECK(sim.flops() == 40.0 * (integrator == Integrator::NetM ? 25 : 15));
      // v and u read and written (4 B each way), the one receptor's 8-byte ring slot read; no synapses
      CHECK(sim.bytes_moved(0) == 40.0 * (2 * 2 * 4 + 8));
      CHECK(sim.bytes_moved(3) == doctest::Approx(40.0 * 24 + 3 * 26));  // 26 B per synaptic event
    }
    auto lif = test::single_neuron("cuba", 0.0, Integrator::Euler, 0.1);
    point::PointNetworkSimulation<SerialBackend, float> sim(lif);
    sim.step();
    CHECK(sim.flops() == 0);
  }

  TEST_CASE("Izhikevich: regular spiking adapts, fast spiking fires faster at the same drive") {
    // Regular spiking (exc, r=0 -> c=-65, d=8) vs fast spiking (a=0.1, b=0.2, c=-65, d=2).
    auto setup = test::single_neuron("izhikevich2003", 10.0, Integrator::Euler, 0.1);
    setup.a = {0.02}; setup.b = {0.2}; setup.c = {-65}; setup.d = {8};
    setup.initial[point::U] = {0.2 * -65};
    const auto rs = test::run_point<SerialBackend, double>(setup, 10000);
    setup.a = {0.1}; setup.d = {2};
    const auto fs = test::run_point<SerialBackend, double>(setup, 10000);
    REQUIRE(rs.spikes.size() >= 4);
    CHECK(fs.spikes.size() > rs.spikes.size());
    const auto isi = [&](std::size_t k) { return rs.spikes[k + 1].first - rs.spikes[k].first; };
    CHECK(isi(rs.spikes.size() - 2) > isi(0));  // spike-frequency adaptation
  }
}
