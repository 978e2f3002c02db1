// Spiking core: deterministic network builders, fixed-point delivery into delayed ring slots against a host
// reference, Poisson sources, population statistics, and whole networks bit-identical across CPU backends.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <type_traits>
#include <vector>

#include "backends/serial/serial_backend.hpp"
#include "spiking/device_synapses.hpp"
#include "spiking/host_network.hpp"
#include "spiking/spike_exchange.hpp"
#include "spiking/spike_log.hpp"
#include "spiking/spike_statistics.hpp"
#include "tests/backend_types.hpp"
#include "tests/spiking_test_support.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::spiking;

NetworkSpec small_spec(const std::string& connectivity, std::uint64_t seed) {
  NetworkSpec s;
  s.connectivity = connectivity;
  s.neurons = 500;
  s.excitatory = 400;
  s.probability = 0.1;
  s.in_degree = 40;
  s.w_exc = {"uniform", 0, 1.0, 2.0};
  s.w_inh = {"constant", -3.0, 0, 0};
  s.seed = seed;
  return s;
}

std::vector<std::int64_t> in_degrees(const SynapseNetwork& n) {
  std::vector<std::int64_t> d(n.neurons, 0);
  for (auto t : n.target) ++d[t];
  return d;
}

// COBA, 2000 neurons, 50 Poisson sources at 10 Hz: a run that spikes a lot and has every kind of presynaptic index.
point::PointSetup coba_with_sources(std::uint64_t seed) {
  point::NamedSet set = point::point_parameter_set("coba");
  spiking::NetworkSpec ns = point::named_network(set, 2000, seed);
  ns.probability = 0.04;
  ns.poisson_sources = 50;
  ns.poisson_probability = 0.1;
  ns.w_poisson.value = 0.5;
  point::DriveSpec drive = point::named_drive(set, 2000);
  drive.poisson_rate_hz = 10.0;
  return point::make_point_setup(set.params, set.initial, ns, drive);
}

}  // namespace

TEST_SUITE("spiking_core") {
  TEST_CASE("fixed probability: deterministic per seed, no self connections, in-degree close to p*N") {
    const auto a = build_network(small_spec("fixed_probability", 3), 0.1);
    const auto b = build_network(small_spec("fixed_probability", 3), 0.1);
    const auto c = build_network(small_spec("fixed_probability", 4), 0.1);
    CHECK(a.target == b.target);
    CHECK(a.weight == b.weight);
    CHECK(a.target != c.target);
    const double expected = 0.1 * 499 * 500;
    CHECK(std::fabs(double(a.synapses()) - expected) < 4 * std::sqrt(expected));
    for (std::int64_t p = 0; p < a.neurons; ++p)
      for (auto k = a.offsets[p]; k < a.offsets[p + 1]; ++k) {
        CHECK(a.target[k] != p);
        if (k > a.offsets[p]) CHECK(a.target[k] > a.target[k - 1]);
        CHECK(a.receptor[k] == (p < 400 ? 0 : 1));
        if (p < 400) CHECK((a.weight[k] >= 1.0 && a.weight[k] < 2.0));
        else CHECK(a.weight[k] == -3.0);
      }
  }

  TEST_CASE("fixed in-degree: exactly K distinct presynaptic neurons, never itself") {
    const auto n = build_network(small_spec("fixed_in_degree", 9), 0.1);
    for (auto d : in_degrees(n)) CHECK(d == 40);
    std::map<std::pair<std::int64_t, std::int32_t>, int> seen;
    for (std::int64_t p = 0; p < n.neurons; ++p)
      for (auto k = n.offsets[p]; k < n.offsets[p + 1]; ++k) {
        CHECK(n.target[k] != p);
        CHECK(++seen[{p, n.target[k]}] == 1);
      }
  }

  TEST_CASE("all-to-all with self connections; delays are rounded to steps") {
    auto s = small_spec("all_to_all", 1);
    s.neurons = 30;
    s.excitatory = 24;
    s.self_connections = true;
    s.delay_ms = 1.26;
    const auto n = build_network(s, 0.1);
    CHECK(n.synapses() == 900);
    CHECK(n.max_delay() == 13);
  }

  TEST_CASE("a drained spike log is in (step, neuron) order: each step's spikes sorted, a part out of step order whole") {
    using Events = std::vector<std::pair<std::int64_t, std::int64_t>>;
    auto sorted = [](Events e) {
      std::sort(e.begin(), e.end());
      return e;
    };
    // steps in order, spikes within a step in any order (what atomic appends log)
    Events e = {{0, 5}, {0, 2}, {1, 9}, {1, 1}, {1, 4}, {3, 0}, {3, 7}, {3, 6}};
    const Events whole = sorted(e);
    spiking::sort_logged_events(e, 0);
    CHECK(e == whole);
    // only the new part is sorted: an earlier part stays as it is
    Events parts = {{9, 3}, {9, 1}, {10, 4}, {10, 2}, {11, 0}};
    spiking::sort_logged_events(parts, 2);
    CHECK(parts == Events{{9, 3}, {9, 1}, {10, 2}, {10, 4}, {11, 0}});
    // steps out of order: sorted whole
    Events late = {{4, 1}, {2, 3}, {4, 0}, {2, 1}};
    spiking::sort_logged_events(late, 0);
    CHECK(late == sorted(Events{{4, 1}, {2, 3}, {4, 0}, {2, 1}}));
    // through the log's drain (host memory, unordered log)
    spiking::DeviceSpikeLog<Kokkos::HostSpace> log("test_log", 8, false);
    log.enable(16, false);
    const Events logged = {{5, 7}, {5, 2}, {5, 3}, {6, 1}, {6, 0}};
    for (std::size_t k = 0; k < logged.size(); ++k) {
      log.log()(2 * k) = static_cast<int>(logged[k].first);
      log.log()(2 * k + 1) = static_cast<int>(logged[k].second);
    }
    log.counters()(spiking::LogUsed) = static_cast<long long>(logged.size());
    CHECK(log.drain([] {}) == sorted(logged));
    CHECK(log.drain([] {}).empty());
  }

  TEST_CASE("population statistics: rate and ISI CV of known trains") {
    std::vector<Population> pops = {{"a", 0, 2, 0}, {"b", 2, 1, 1}};
    std::vector<std::pair<std::int64_t, std::int64_t>> ev;
    for (int k = 1; k <= 10; ++k) ev.emplace_back(k * 100, 0);  // regular: CV 0
    ev.emplace_back(100, 2); ev.emplace_back(200, 2); ev.emplace_back(500, 2);  // ISIs 10, 30 ms: CV 0.5
    const auto st = population_stats(pops, ev, 1000.0, 0.1);
    CHECK(st[0].rate_hz == doctest::Approx(5.0));
    CHECK(st[0].isi_cv == doctest::Approx(0.0));
    CHECK(st[0].cv_neurons == 1);
    CHECK(st[1].rate_hz == doctest::Approx(3.0));
    CHECK(st[1].isi_cv == doctest::Approx(0.5));
  }

  TEST_CASE_TEMPLATE_DEFINE("delivery: fixed-point sums in the right delayed slots, identical to a host sum", Backend,
                            delivery_matches_host) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    auto spec = small_spec("fixed_probability", 5);
    spec.w_inh = {"uniform", 0, -4.0, -1.0};
    SynapseNetwork net = build_network(spec, 0.1);
    for (std::size_t k = 0; k < net.delay.size(); ++k) net.delay[k] = static_cast<std::int32_t>(k % 4);
    const auto syn = DeviceSynapses<Mem>::upload(net);
    const int slots = syn.max_delay + 1, receptors = 2, step = 6;
    std::vector<int> spiking = {0, 3, 17, 250, 401, 499};
    Kokkos::View<int*, Mem> list("list", spiking.size());
    auto lh = Kokkos::create_mirror_view(list);
    for (std::size_t k = 0; k < spiking.size(); ++k) lh(k) = spiking[k];
    Kokkos::deep_copy(list, lh);
    Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring("ring", slots * receptors, net.neurons);
    Kokkos::View<long long*, Mem> counters("counters", kSpikeCounters);
    Kokkos::deep_copy(Kokkos::subview(counters, step_counter(step)), static_cast<long long>(spiking.size()));
    SpikeDeliverFunctor<Exec> f{syn, list, counters, ring, make_step_clock<Mem>(step), slots, receptors};
    Kokkos::parallel_for(Kokkos::TeamPolicy<Exec>(3, Kokkos::AUTO), f);  // fewer teams than spikes: teams loop
    auto rh = Kokkos::create_mirror_view(ring);
    Kokkos::deep_copy(rh, ring);
    // host reference in fixed point, then converted
    std::vector<double> expect(slots * receptors * net.neurons, 0.0);
    for (int pre : spiking)
      for (auto k = net.offsets[pre]; k < net.offsets[pre + 1]; ++k) {
        const int r = net.receptor[k];
        const int slot = (step + 1 + net.delay[k]) % slots;
        expect[(slot * receptors + r) * net.neurons + net.target[k]] += std::llround(net.weight[k] * syn.scale[r]);
      }
    bool all_equal = true, some_nonzero = false;
    double max_err = 0;
    for (int row = 0; row < slots * receptors; ++row)
      for (std::int64_t i = 0; i < net.neurons; ++i) {
        const double e = expect[row * net.neurons + i];
        all_equal = all_equal && double(rh(row, i)) == e;
        some_nonzero = some_nonzero || e != 0;
        max_err = std::fmax(max_err, std::fabs(double(rh(row, i)) / syn.scale[row % receptors] - 0.0 * e));
      }
    CHECK(all_equal);
    CHECK(some_nonzero);
    CHECK(syn.scale[0] == std::ldexp(1.0, 29));  // weights below 2: 2^29 * 2 = 2^30
    (void)max_err;
  }
  TEST_CASE_TEMPLATE_APPLY(delivery_matches_host, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("spike lists by atomic append (GPU default) and by scan give identical runs", Backend,
                            append_matches_scan) {
    const auto setup = coba_with_sources(5);
    std::vector<std::pair<std::int64_t, std::int64_t>> spikes[2];
    std::vector<double> v[2];
    std::int64_t totals[2] = {0, 0};
    const auto run = [&](auto* sim_type, int atomic) {
      std::remove_pointer_t<decltype(sim_type)> sim(setup);
      sim.enable_spike_log(1 << 16);  // small: the host drains it several times
      for (int n = 0; n < 1500; ++n) sim.step();
      spikes[atomic] = sim.drain_spikes();
      v[atomic] = sim.variable(point::V);
      totals[atomic] = sim.total_spikes();
    };
    run(static_cast<point::PointNetworkSimulation<Backend, double, false>*>(nullptr), 0);  // parallel_scan
    run(static_cast<point::PointNetworkSimulation<Backend, double, true>*>(nullptr), 1);   // atomic append
    REQUIRE(spikes[0].size() > 1000);
    CHECK(std::is_sorted(spikes[1].begin(), spikes[1].end()));
    CHECK(spikes[0] == spikes[1]);
    CHECK(v[0] == v[1]);
    CHECK(totals[0] == totals[1]);
    CHECK(totals[0] > static_cast<std::int64_t>(spikes[0].size()));  // the Poisson sources' spikes count too
  }
  TEST_CASE_TEMPLATE_APPLY(append_matches_scan, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("replayed steps (a CUDA graph) give the run that launched steps give, bit for bit",
                            Backend, replay_matches_launch) {
    const auto setup = coba_with_sources(9);
    std::vector<std::pair<std::int64_t, std::int64_t>> spikes[2];
    std::vector<double> v[2];
    std::int64_t totals[2] = {0, 0};
    bool replayed[2] = {false, false};
    const auto run = [&](auto* sim_type, int replay) {
      std::remove_pointer_t<decltype(sim_type)> sim(setup);
      sim.enable_spike_log(1 << 16);  // small: the host drains it between replays
      for (int n = 0; n < 1500; ++n) {
        sim.step();
        if (n == 700) spikes[replay] = sim.drain_spikes();  // a drain in the middle of the run
      }
      const auto rest = sim.drain_spikes();
      spikes[replay].insert(spikes[replay].end(), rest.begin(), rest.end());
      v[replay] = sim.variable(point::V);
      totals[replay] = sim.total_spikes();
      replayed[replay] = sim.replays_steps();
    };
    using point::NoStepProbe;
    run(static_cast<point::PointNetworkSimulation<Backend, double, Backend::is_gpu, NoStepProbe, false>*>(nullptr), 0);
    run(static_cast<point::PointNetworkSimulation<Backend, double, Backend::is_gpu, NoStepProbe, true>*>(nullptr), 1);
    CHECK(!replayed[0]);
    // Backends that declare a step graph must really replay (a failed recording falls back silently otherwise).
    CHECK(replayed[1] == is_detected_v<StepGraphOf, Backend>);
    REQUIRE(spikes[0].size() > 1000);
    CHECK(spikes[0] == spikes[1]);
    CHECK(v[0] == v[1]);
    CHECK(totals[0] == totals[1]);
  }
  TEST_CASE_TEMPLATE_APPLY(replay_matches_launch, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("dense storage delivers exactly what the CSR delivers, sources staying in CSR", Backend,
                            dense_matches_csr) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    auto spec = small_spec("all_to_all", 9);
    spec.w_inh = {"uniform", 0, -4.0, -1.0};
    spec.delay_ms = 0.3;
    spec.poisson_sources = 20;
    spec.poisson_probability = 0.5;
    spec.w_poisson = {"constant", 0.7, 0, 0};
    const SynapseNetwork net = build_network(spec, 0.1);
    const auto csr = DeviceSynapses<Mem>::upload(net);
    const auto rest = DeviceSynapses<Mem>::upload(net, true);  // the sources' rows only
    const auto dense = DenseSynapses<Mem>::upload(net, rest.scale);
    CHECK(rest.count == net.offsets.back() - net.offsets[net.neurons]);
    CHECK(dense.delay == 3);
    const int slots = csr.max_delay + 1, receptors = 2, step = 5;
    // ascending list: neurons first, then sources (as the compaction writes it)
    const std::vector<int> spiking = {1, 2, 77, 399, 400, 401, 499, 500, 507, 519};
    Kokkos::View<int*, Mem> list("list", spiking.size());
    auto lh = Kokkos::create_mirror_view(list);
    for (std::size_t k = 0; k < spiking.size(); ++k) lh(k) = spiking[k];
    Kokkos::deep_copy(list, lh);
    Kokkos::View<long long*, Mem> counters("counters", kSpikeCounters);
    auto ch = Kokkos::create_mirror_view(counters);
    Kokkos::deep_copy(ch, 0LL);
    ch(step_counter(step)) = static_cast<long long>(spiking.size());
    ch(step_counter(step) + 1) = 7;  // neuron spikes
    Kokkos::deep_copy(counters, ch);
    using Ring = Kokkos::View<long long**, Kokkos::LayoutRight, Mem>;
    Ring a("ring_csr", slots * receptors, net.neurons), b("ring_dense", slots * receptors, net.neurons);
    const auto clock = make_step_clock<Mem>(step);
    Kokkos::parallel_for(Kokkos::TeamPolicy<Exec>(4, Kokkos::AUTO),
                         SpikeDeliverFunctor<Exec>{csr, list, counters, a, clock, slots, receptors});
    Kokkos::parallel_for(Kokkos::TeamPolicy<Exec>(4, Kokkos::AUTO),
                         SpikeDeliverFunctor<Exec>{rest, list, counters, b, clock, slots, receptors});
    Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, net.neurons),
                         DenseDeliverFunctor<Mem>{dense, list, counters, b, clock, slots, receptors});
    auto ah = Kokkos::create_mirror_view(a);
    auto bh = Kokkos::create_mirror_view(b);
    Kokkos::deep_copy(ah, a);
    Kokkos::deep_copy(bh, b);
    long long nonzero = 0, differ = 0;
    for (int row = 0; row < slots * receptors; ++row)
      for (std::int64_t i = 0; i < net.neurons; ++i) {
        nonzero += ah(row, i) != 0;
        differ += ah(row, i) != bh(row, i);
      }
    CHECK(nonzero > net.neurons);  // both receptors (and the sources' slot) were hit
    CHECK(differ == 0);
  }
  TEST_CASE_TEMPLATE_APPLY(dense_matches_csr, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("a network with dense storage spikes exactly as with CSR storage", Backend,
                            dense_network_matches_csr) {
    point::NamedSet set = point::point_parameter_set("izhikevich2003");  // all-to-all, self included
    spiking::NetworkSpec ns = point::named_network(set, 400, 3);
    ns.delay_ms = 1.0;
    auto setup = point::make_point_setup(set.params, set.initial, ns, point::named_drive(set, 400));
    const auto csr = test::run_point<Backend, double>(setup, 400);
    setup.dense_synapses = true;
    const auto dense = test::run_point<Backend, double>(setup, 400);
    REQUIRE(csr.spikes.size() > 100);
    CHECK(csr.spikes == dense.spikes);
    CHECK(csr.v == dense.v);
  }
  TEST_CASE_TEMPLATE_APPLY(dense_network_matches_csr, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("Poisson sources fire at their rate and are the same on every backend", Backend,
                            poisson_rate) {
    point::NamedSet set = point::point_parameter_set("cuba");
    NetworkSpec ns = point::named_network(set, 100, 11);
    ns.connectivity = "none";
    ns.poisson_sources = 200;
    ns.poisson_probability = 0.1;
    ns.w_poisson.value = 0.5;
    point::DriveSpec drive;
    drive.poisson_rate_hz = 20.0;
    const auto setup = point::make_point_setup(set.params, set.initial, ns, drive);
    point::PointNetworkSimulation<Backend, double> sim(setup);
    sim.enable_spike_log();
    for (int n = 0; n < 10000; ++n) sim.step();
    std::int64_t total = sim.total_spikes();
    const auto neuron_spikes = sim.drain_spikes();
    CHECK(!neuron_spikes.empty());  // the sources drive the neurons
    total -= static_cast<std::int64_t>(neuron_spikes.size());
    const double expected = 200 * 20.0;                    // 200 sources x 20 Hz x 1 s
    CHECK(std::fabs(double(total) - expected) < 5 * std::sqrt(expected) + 0.05 * expected);
    point::PointNetworkSimulation<SerialBackend, double> ref(setup);
    ref.enable_spike_log();
    for (int n = 0; n < 10000; ++n) ref.step();
    const std::int64_t ref_total = ref.total_spikes();
    CHECK(total == ref_total - static_cast<std::int64_t>(ref.drain_spikes().size()));
  }
  TEST_CASE_TEMPLATE_APPLY(poisson_rate, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("COBA, CUBA, COBAHH and Izhikevich networks: spikes bit-identical to Serial on CPU "
                            "backends, rates within 10 % on GPUs", Backend, network_matches_serial) {
    struct Case {
      const char* set;
      std::int64_t neurons, steps;
    };
    for (const Case& c : {Case{"coba", 2000, 2000}, Case{"cuba", 2000, 2000}, Case{"cobahh", 1000, 1000},
                          Case{"izhikevich2003", 1000, 300}}) {
      CAPTURE(c.set);
      point::NamedSet set = point::point_parameter_set(c.set);
      spiking::NetworkSpec ns = point::named_network(set, c.neurons, 2);
      if (set.w_kind != "izhikevich2003") ns.probability = 0.04;  // half the neurons: keep the in-degree
      const auto setup = point::make_point_setup(set.params, set.initial, ns, point::named_drive(set, c.neurons));
      const auto ref = test::run_point<SerialBackend, double>(setup, c.steps);
      const auto got = test::run_point<Backend, double>(setup, c.steps);
      REQUIRE(ref.spikes.size() > std::size_t(c.neurons / 10));
      if (Backend::is_gpu) {
        const double a = double(ref.spikes.size()), b = double(got.spikes.size());
        CHECK(std::fabs(a - b) <= 0.1 * a);
      } else {
        CHECK(ref.spikes == got.spikes);
        CHECK(ref.v == got.v);
      }
    }
  }
  TEST_CASE_TEMPLATE_APPLY(network_matches_serial, KBRAIN_TEST_BACKENDS);
}
