// Spiking networks generated on the backend (spiking/generated_synapses.hpp): on every backend the same synapses,
// bit for bit, as the host network uploaded the old way (fixed-point weights, packed delay/receptor, scales, max
// delay); a hash of the device arrays equal to the Serial backend's; the laws of each connectivity rule; and, for
// fixed in-degree, the same network as the host builder before generation moved to the backends.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "backends/serial/serial_backend.hpp"
#include "spiking/counter_draws.hpp"
#include "spiking/generated_synapses.hpp"
#include "spiking/host_network.hpp"
#include "spiking/network_memory.hpp"
#include "spiking/spike_log.hpp"
#include "tests/backend_types.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::spiking;

struct Case {
  std::string name;
  NetworkSpec spec;
  DelayRule delay;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  NetworkSpec s;
  s.neurons = 700;
  s.excitatory = 560;
  s.seed = 11;
  s.w_exc = {"uniform", 0, 0.5, 2.5};
  s.w_inh = {"constant", -3.0, 0, 0};
  s.connectivity = "fixed_probability";
  s.probability = 0.05;
  s.poisson_sources = 30;
  s.poisson_probability = 0.2;
  s.w_poisson = {"constant", 0.7, 0, 0};
  s.delay_ms = 0.3;
  out.push_back({"fixed_probability + Poisson", s, constant_delay_of(s, 0.1)});
  NetworkSpec d = s;
  d.connectivity = "fixed_in_degree";
  d.in_degree = 60;
  d.poisson_sources = 0;
  d.w_inh = {"uniform", 0, -4.0, -1.0};
  out.push_back({"fixed_in_degree, Wang 2012 delays", d, DelayRule::whole_ms(2.0, 4.0, 1.0)});
  NetworkSpec a = s;
  a.connectivity = "all_to_all";
  a.neurons = 150;
  a.excitatory = 120;
  a.self_connections = true;
  a.inhibitory_receptor = 0;
  out.push_back({"all_to_all with self, one receptor", a, DelayRule::constant(2)});
  NetworkSpec n = s;
  n.connectivity = "none";
  out.push_back({"none + Poisson", n, DelayRule::constant(0)});
  return out;
}

template <class T, class Mem>
std::vector<T> host_copy(const Kokkos::View<T*, Mem>& v) {
  std::vector<T> h(v.extent(0));
  Kokkos::deep_copy(Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(h.data(), h.size()), v);
  return h;
}
template <class T, class Mem>
std::vector<T> host_copy(const Kokkos::View<const T*, Mem>& v) {
  std::vector<T> h(v.extent(0));
  Kokkos::deep_copy(Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(h.data(), h.size()), v);
  return h;
}

template <class T>
std::uint64_t fnv1a(std::uint64_t h, const std::vector<T>& v) {
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  for (std::size_t k = 0; k < v.size() * sizeof(T); ++k) h = (h ^ p[k]) * 0x100000001b3ull;
  return h;
}

template <class Mem>
std::uint64_t hash_of(const DeviceSynapses<Mem>& d) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  h = fnv1a(h, host_copy(d.offsets));
  h = fnv1a(h, host_copy(d.target));
  h = fnv1a(h, host_copy(d.weight));
  h = fnv1a(h, host_copy(d.delay_receptor));
  return fnv1a(h, std::vector<double>{d.scale[0], d.scale[1], double(d.max_delay)});
}

// The host builder as it was before generation moved to the backends (fixed in-degree rows).
std::vector<std::vector<std::int32_t>> old_in_degree_rows(const NetworkSpec& s) {
  std::vector<std::vector<std::int32_t>> out(static_cast<std::size_t>(s.neurons));
  std::vector<std::uint64_t> taken((static_cast<std::size_t>(s.neurons) + 63) / 64, 0);
  std::vector<std::int32_t> chosen;
  for (std::int64_t post = 0; post < s.neurons; ++post) {
    chosen.clear();
    for (std::uint64_t k = 0; static_cast<std::int64_t>(chosen.size()) < s.in_degree; ++k) {
      const auto pre = static_cast<std::int32_t>(
          draw_uniform(s.seed, Purpose::Connectivity, static_cast<std::uint64_t>(post), k) * double(s.neurons));
      const std::uint64_t bit = std::uint64_t(1) << (pre & 63);
      if ((!s.self_connections && pre == post) || (taken[pre >> 6] & bit) != 0) continue;
      taken[pre >> 6] |= bit;
      chosen.push_back(pre);
    }
    for (auto pre : chosen) {
      out[pre].push_back(static_cast<std::int32_t>(post));
      taken[pre >> 6] = 0;
    }
  }
  return out;
}

}  // namespace

TEST_SUITE("network_generation") {
  TEST_CASE_TEMPLATE_DEFINE("generated on the backend: the uploaded host network, bit for bit, and Serial's hash",
                            Backend, generated_matches_upload) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    for (const Case& c : cases()) {
      CAPTURE(c.name);
      const SynapseNetwork host = build_network(c.spec, c.delay);
      const DeviceSynapses<Mem> want = DeviceSynapses<Mem>::upload(host);
      const GeneratedSynapses<Mem> got = generate_synapses<Exec>(c.spec, c.delay);
      CHECK(got.offsets == host.offsets);
      CHECK(host_copy(got.csr.target) == host_copy(want.target));
      CHECK(host_copy(got.csr.weight) == host_copy(want.weight));
      CHECK(host_copy(got.csr.delay_receptor) == host_copy(want.delay_receptor));
      CHECK(got.csr.scale[0] == want.scale[0]);
      CHECK(got.csr.scale[1] == want.scale[1]);
      CHECK(got.csr.max_delay == want.max_delay);
      CHECK(got.csr.count == want.count);
      const auto serial = generate_synapses<Kokkos::Serial>(c.spec, c.delay);
      CHECK(hash_of(got.csr) == hash_of(serial.csr));
    }
  }
  TEST_CASE_TEMPLATE_APPLY(generated_matches_upload, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("dense storage generated on the backend equals the uploaded dense matrix", Backend,
                            generated_dense) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    Case c = cases()[2];
    c.spec.poisson_sources = 10;
    c.spec.poisson_probability = 0.5;
    const SynapseNetwork host = build_network(c.spec, c.delay);
    const auto rest = DeviceSynapses<Mem>::upload(host, true);
    const auto dense = DenseSynapses<Mem>::upload(host, rest.scale);
    const auto got = generate_synapses<Exec>(c.spec, c.delay, true);
    CHECK(host_copy(got.csr.offsets) == host_copy(rest.offsets));
    CHECK(host_copy(got.csr.target) == host_copy(rest.target));
    CHECK(host_copy(got.csr.weight) == host_copy(rest.weight));
    CHECK(got.dense.delay == dense.delay);
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got.dense.weight);
    auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dense.weight);
    std::int64_t differ = 0, nonzero = 0;
    for (std::size_t i = 0; i < a.extent(0); ++i)
      for (std::size_t j = 0; j < a.extent(1); ++j) {
        differ += a(i, j) != b(i, j);
        nonzero += a(i, j) != 0;
      }
    CHECK(differ == 0);
    CHECK(nonzero == c.spec.neurons * c.spec.neurons);  // all-to-all with self connections
    CHECK_THROWS_AS(generate_synapses<Exec>(c.spec, DelayRule::whole_ms(1, 3, 1), true), std::invalid_argument);
  }
  TEST_CASE_TEMPLATE_APPLY(generated_dense, KBRAIN_TEST_BACKENDS);

  TEST_CASE("laws: sorted distinct rows, exact in-degrees, no self connections, Bernoulli counts") {
    for (const Case& c : cases()) {
      CAPTURE(c.name);
      const SynapseNetwork net = build_network(c.spec, c.delay);
      std::vector<std::int64_t> in(static_cast<std::size_t>(c.spec.neurons), 0);
      std::int64_t self = 0;
      for (std::int64_t p = 0; p < net.presynaptic(); ++p) {
        for (std::int64_t k = net.offsets[p]; k < net.offsets[p + 1]; ++k) {
          if (k > net.offsets[p]) CHECK(net.target[k - 1] < net.target[k]);
          self += p < net.neurons && net.target[k] == p;
          if (p < net.neurons) ++in[net.target[k]];
        }
      }
      if (!c.spec.self_connections) CHECK(self == 0);
      const auto& s = c.spec;
      if (s.connectivity == "fixed_in_degree")
        CHECK(std::all_of(in.begin(), in.end(), [&](std::int64_t d) { return d == s.in_degree; }));
      if (s.connectivity == "all_to_all") CHECK(net.offsets[s.neurons] == s.neurons * s.neurons);
      if (s.connectivity == "fixed_probability") {
        const double expected = s.probability * double(s.neurons) * double(s.neurons - 1);
        CHECK(std::abs(double(net.offsets[s.neurons]) - expected) < 5 * std::sqrt(expected));
      }
      if (s.poisson_sources > 0) {
        const double expected = s.poisson_probability * double(s.neurons * s.poisson_sources);
        CHECK(std::abs(double(net.offsets.back() - net.offsets[s.neurons]) - expected) < 5 * std::sqrt(expected));
      }
    }
  }

  TEST_CASE("fixed in-degree: the same network as the host builder it replaced") {
    NetworkSpec s = cases()[1].spec;
    for (bool self : {false, true}) {
      s.self_connections = self;
      const auto old_rows = old_in_degree_rows(s);
      const SynapseNetwork net = build_network(s, DelayRule::constant(0));
      std::int64_t mismatched = 0;
      for (std::int64_t p = 0; p < s.neurons; ++p) {
        const std::vector<std::int32_t> row(net.target.begin() + net.offsets[p], net.target.begin() + net.offsets[p + 1]);
        mismatched += row != old_rows[static_cast<std::size_t>(p)];
      }
      CHECK(mismatched == 0);
    }
  }

  TEST_CASE("the spike log's default size, and the memory estimate counts the log the run will keep") {
    CHECK(default_spike_log_capacity(1000, true) == (std::int64_t(1) << 20));
    CHECK(default_spike_log_capacity(1000000, true) == 64000000);
    CHECK(default_spike_log_capacity(2000000, true) == (std::int64_t(1) << 26));
    CHECK(default_spike_log_capacity(1000, false) == (std::int64_t(1) << 16));
    CHECK(default_spike_log_capacity(100000000, false) == 100000000);  // never fewer than one step's worth
    SpikingMemoryShape m;
    m.spec = cases()[1].spec;
    m.spec.neurons = 1000000;
    const double one_per_neuron = spiking_device_bytes(m);
    m.log_capacity = default_spike_log_capacity(m.spec.neurons, true);
    CHECK(spiking_device_bytes(m) - one_per_neuron == 8.0 * (64000000 - 1000000));  // (step, neuron) as two ints
  }

  TEST_CASE("memory estimate: grows with the network; a run that does not fit is refused naming what fits") {
    SpikingMemoryShape m;
    m.spec = cases()[1].spec;
    m.spec.neurons = 1000000;
    m.spec.in_degree = 200;
    const double need = spiking_device_bytes(m);
    CHECK(need > 1000000.0 * 200 * 10);  // at least the synapses that stay: target, weight, delay/receptor
    SpikingMemoryShape half = m;
    half.spec.neurons = 500000;
    CHECK(spiking_device_bytes(half) < need);
    CHECK_NOTHROW(require_spiking_memory(m, need, "test device"));
    CHECK_NOTHROW(require_spiking_memory(m, 0, "unknown"));
    try {
      require_spiking_memory(m, need / 2, "test device");
      FAIL("not refused");
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      CHECK(what.find("test device") != std::string::npos);
      CHECK(what.find("largest network of this rule that fits has") != std::string::npos);
    }
  }

  TEST_CASE("bad specs are refused before anything is allocated") {
    NetworkSpec s = cases()[0].spec;
    s.connectivity = "fixed_in_degree";
    s.in_degree = s.neurons;  // no self connections: at most neurons - 1
    CHECK_THROWS_AS(check_network_spec(s), std::invalid_argument);
    s.connectivity = "small_world";
    CHECK_THROWS_AS(check_network_spec(s), std::invalid_argument);
    s = cases()[0].spec;
    s.probability = 1.5;
    CHECK_THROWS_AS(check_network_spec(s), std::invalid_argument);
    CHECK(expected_synapses(cases()[1].spec) == 700.0 * 60.0);
  }
}
