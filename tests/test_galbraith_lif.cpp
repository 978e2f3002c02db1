// The Galbraith 2010 LIF network (models/galbraith_lif/): the study's exact spike-count regression on the ring and
// the fully connected network on every backend, in both precisions and both synapse updates; random networks with
// identical counts everywhere; the random-pair rule; the binary connection file; the memory planner; config errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "backends/serial/serial_backend.hpp"
#include "models/galbraith_lif/galbraith_model.hpp"
#include "models/registry.hpp"
#include "tests/backend_types.hpp"
#include "tests/test_helpers.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::galbraith;

std::string galbraith_toml(const std::string& network, const std::string& update, std::int64_t steps,
                           const std::string& extra = "") {
  return "name = \"t\"\n[model]\nkind = \"galbraith_lif\"\n[simulation]\ndt = 0.25\nsteps = " + std::to_string(steps) +
         "\nsynapse_update = \"" + update + "\"\n[network]\n" + network + "\n" + extra;
}

template <class Backend, class Real>
std::vector<std::int32_t> run_counts(const GalbraithPlan& plan, std::vector<double>* V = nullptr) {
  RunRequest request;
  RunResult res;
  GalbraithSimulation<Backend, Real> sim(plan, request, res);
  for (std::int64_t n = 0; n < plan.steps; ++n) sim.step();
  sim.fence();
  if (V) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sim.state().st.V);
    V->assign(h.data(), h.data() + plan.neurons());
  }
  return sim.counts();
}

std::vector<std::int32_t> to_int32(const std::vector<std::int64_t>& v) { return {v.begin(), v.end()}; }

void write_records(const std::filesystem::path& file, const std::vector<std::array<std::uint32_t, 4>>& records,
                   std::size_t extra_bytes = 0) {
  std::ofstream out(file, std::ios::binary);
  for (const auto& r : records) out.write(reinterpret_cast<const char*>(r.data()), 16);  // the test host is little-endian
  for (std::size_t k = 0; k < extra_bytes; ++k) out.put('\0');
}
std::uint32_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

}  // namespace

TEST_SUITE("galbraith_lif") {
  TEST_CASE("bytes moved: a ring's counts give every spike's arrival and filter add; a full network's targets its busiest source") {
    // A ring: one source per target, so every arriving spike is its own (target, step). L = 100 taps.
    for (const std::string update : {"event", "agent"}) {
      CAPTURE(update);
      const ExperimentConfig cfg = parse_model_experiment(galbraith_toml("topology = \"ring\"\nneurons = 5", update, 400), "ring.toml");
      const GalbraithPlan plan = make_galbraith_plan(cfg, {});
      RunRequest request;
      RunResult res;
      GalbraithSimulation<SerialBackend, float> sim(plan, request, res);
      for (std::int64_t n = 0; n < plan.steps; ++n) sim.step();
      sim.finish(res);
      const auto counts = sim.counts();
      double spikes = 0;
      for (auto c : counts) spikes += c;
      REQUIRE(spikes > 10);
      REQUIRE(plan.taps() == 100);
      const double expected = update == "event" ? 400.0 * 5 * (4 * 4 + 17) + 400.0 * 5 * 5 + spikes * 4 + spikes * 2 * 100 * 4
                                                : 400.0 * 5 * (7 * 4 + 19) + 400.0 * 5 * (5 * 4 + 5) + spikes * 2 * 100 * 4;
      CHECK(res.bytes_moved == doctest::Approx(expected));
    }
    // Fully connected: each target receives on at least as many steps as its busiest source fired.
    HostNetwork full = full_network(3, 1.0f);
    const std::vector<std::int32_t> counts = {7, 2, 4};
    const double with = galbraith_bytes_moved(full, counts, 10, 100, SynapseUpdate::Event, 4);
    const double without = galbraith_bytes_moved(full, {0, 0, 0}, 10, 100, SynapseUpdate::Event, 4);
    CHECK(with - without == doctest::Approx(3 * (7 + 2 + 4) * 4.0 + 3 * 7 * 2 * 100 * 4.0));
  }

  TEST_CASE_TEMPLATE_DEFINE("the study's regression: exact ring and full counts, both precisions and updates", Backend,
                            galbraith_regression) {
    for (const std::string update : {"event", "agent"}) {
      CAPTURE(update);
      // Ring of 30: the wave wraps around, neuron 0 keeps its pace; 40 000 steps as in the thesis.
      const ExperimentConfig ring = parse_model_experiment(
          galbraith_toml("topology = \"ring\"\nneurons = 30", update, 40000), "ring.toml");
      const GalbraithPlan ring_plan = make_galbraith_plan(ring, {});
      const auto expected = to_int32(closed_form_counts(ring_plan, ring_plan.steps));
      REQUIRE(expected.size() == 30);
      // The thesis' words: neurons 1-3 spike 4445 times, 4-12 4444 times, 13-21 4443 times.
      for (int i = 0; i < 21; ++i) CHECK(expected[i] == (i < 3 ? 4445 : i < 12 ? 4444 : 4443));
      CHECK(run_counts<Backend, float>(ring_plan) == expected);
      CHECK(run_counts<Backend, double>(ring_plan) == expected);
      // Fully connected with self loops: every neuron 4445 (20 inputs per neuron: GPUs sum them with a team).
      const ExperimentConfig full = parse_model_experiment(
          galbraith_toml("topology = \"full\"\nneurons = 20", update, 40000), "full.toml");
      const GalbraithPlan full_plan = make_galbraith_plan(full, {});
      const std::vector<std::int32_t> all_4445(20, 4445);
      CHECK(to_int32(closed_form_counts(full_plan, full_plan.steps)) == all_4445);
      CHECK(run_counts<Backend, float>(full_plan) == all_4445);
      CHECK(run_counts<Backend, double>(full_plan) == all_4445);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(galbraith_regression, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("a ring longer than the run: the wave reaches neuron steps - 2, no further", Backend,
                            galbraith_long_ring) {
    const ExperimentConfig cfg = parse_model_experiment(
        galbraith_toml("topology = \"ring\"\nneurons = 500", "event", 300), "ring.toml");
    const GalbraithPlan plan = make_galbraith_plan(cfg, {});
    const auto counts = run_counts<Backend, float>(plan);
    CHECK(counts == to_int32(closed_form_counts(plan, plan.steps)));
    CHECK(counts[298] == 1);  // first spike at step 299, the last step
    CHECK(counts[299] == 0);
  }
  TEST_CASE_TEMPLATE_APPLY(galbraith_long_ring, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("random networks: identical counts on every backend and for both updates", Backend,
                            galbraith_random) {
    for (const char* net : {"topology = \"random\"\nneurons = 300\nsynapses = 900\nseed = 7",
                            "topology = \"random\"\nneurons = 40\nsynapses = 1500\nseed = 3"}) {
      CAPTURE(net);
      // Weaker synapses than the overdriven default, so that inputs sum and the dynamics are not trivial.
      const std::string params = "[model.parameters]\nweight = 900\n[stimulus]\nneurons = [0, 5]\n";
      const auto event_experiment = parse_model_experiment(galbraith_toml(net, "event", 3000, params), "r.toml");
      const GalbraithPlan event = make_galbraith_plan(event_experiment, {});
      const auto agent_experiment = parse_model_experiment(galbraith_toml(net, "agent", 3000, params), "r.toml");
      const GalbraithPlan agent = make_galbraith_plan(agent_experiment, {});
      std::vector<double> v_serial, v_here;
      const auto serial_d = run_counts<SerialBackend, double>(event, &v_serial);
      std::int64_t total = 0;
      for (auto c : serial_d) total += c;
      CHECK(total > 1000);  // the activity spread
      CHECK(run_counts<Backend, double>(event, &v_here) == serial_d);
      if (!Backend::is_gpu) CHECK(v_here == v_serial);
      for (std::size_t i = 0; i < v_here.size(); ++i) CHECK(std::fabs(v_here[i] - v_serial[i]) < 1e-9);
      CHECK(run_counts<Backend, double>(agent) == serial_d);
      CHECK(run_counts<Backend, float>(event) == run_counts<SerialBackend, float>(event));
      CHECK(run_counts<Backend, float>(agent) == run_counts<SerialBackend, float>(agent));
    }
  }
  TEST_CASE_TEMPLATE_APPLY(galbraith_random, KBRAIN_TEST_BACKENDS);

  TEST_CASE("random pairs: exactly S distinct ordered pairs, grouped by target, the same for the same seed") {
    for (const auto& ns : std::vector<std::pair<std::int64_t, std::int64_t>>{{50, 300}, {20, 390}, {10, 100}, {1000, 1}}) {
      const std::int64_t n = ns.first, s = ns.second;
      CAPTURE(n);
      CAPTURE(s);
      const HostNetwork net = random_network(n, s, 11, 1.0f);
      REQUIRE(net.synapses() == s);
      REQUIRE(net.offsets.size() == std::size_t(n + 1));
      CHECK(net.offsets.back() == s);
      std::set<std::pair<std::int64_t, std::int32_t>> pairs;
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t k = net.offsets[i]; k < net.offsets[i + 1]; ++k) {
          CHECK(net.src[k] >= 0);
          CHECK(net.src[k] < n);
          if (k > net.offsets[i]) CHECK(net.src[k] > net.src[k - 1]);  // ascending source within a target
          pairs.emplace(i, net.src[k]);
        }
      CHECK(pairs.size() == std::size_t(s));
      const HostNetwork again = random_network(n, s, 11, 1.0f);
      CHECK(again.src == net.src);
      CHECK(again.offsets == net.offsets);
    }
    CHECK(random_network(50, 300, 11, 1.0f).src != random_network(50, 300, 12, 1.0f).src);
  }

  TEST_CASE("connection file: written, read back, and every malformed file refused with its record") {
    test::TempDir tmp("galbraith_files");
    const HostNetwork net = random_network(64, 500, 5, 1.5f);
    const auto file = tmp.path / "connections.bin";
    write_connection_file(file, net);
    CHECK(std::filesystem::file_size(file) == 500 * 16);
    const HostNetwork back = read_connection_file(file, 64, true, 9.0f);
    CHECK(back.src == net.src);
    CHECK(back.offsets == net.offsets);
    CHECK(back.weight == net.weight);
    CHECK(read_connection_file(file, 64, false, 9.0f).weight == std::vector<float>(500, 9.0f));

    auto refused = [&](const std::vector<std::array<std::uint32_t, 4>>& records, std::size_t extra, const std::string& what) {
      const auto bad = tmp.path / "bad.bin";
      write_records(bad, records, extra);
      std::string message;
      try {
        read_connection_file(bad, 10, true, 1.0f);
      } catch (const ConfigError& e) {
        message = e.what();
      }
      CAPTURE(message);
      CHECK(message.find(bad.string()) != std::string::npos);
      CHECK(message.find(what) != std::string::npos);
    };
    const std::uint32_t one = bits(1.0f), nan = bits(std::nanf(""));
    refused({{0, 1, one, 0}}, 5, "not a whole number of 16-byte records");
    refused({{0, 1, one, 0}, {3, 10, one, 0}}, 0, "record 1 (byte 16): target 10 is out of range [0, 10)");
    refused({{12, 1, one, 0}}, 0, "record 0 (byte 0): source 12 is out of range");
    refused({{0, 1, one, 0}, {1, 2, one, 0}, {2, 3, nan, 0}}, 0, "record 2 (byte 32): weight nan is not a finite number");
    // A file network runs like the generated one.
    const std::string toml = galbraith_toml("topology = \"file\"\nneurons = 64\nfile = \"" + file.string() + "\"", "event", 500);
    const auto file_experiment = parse_model_experiment(toml, tmp.path / "f.toml");
    const GalbraithPlan plan = make_galbraith_plan(file_experiment, {});
    CHECK(plan.synapses() == 500);
    CHECK(plan.network->weight == net.weight);
  }

  TEST_CASE("memory planner: the study's Table 4.2 formula and a refusal before allocation that names the bytes") {
    CHECK(study_layout_bytes(100000, 1000000, 100) == 50 * 100000 + 24 * 1000000 + 4 * 100 * 1100000 + 4 * 100000);
    // The study's GTX 260 (896 MB) could not hold 100 000 neurons with 10^6 synapses (003:L958).
    CHECK(study_layout_bytes(100000, 1000000, 100) > 896ll * 1000 * 1000 * 0.5);
    // The plan points at its experiment, which must outlive it.
    const auto experiment =
        parse_model_experiment(galbraith_toml("topology = \"random\"\nneurons = 1000\nsynapses = 20000", "agent", 10), "m.toml");
    const GalbraithPlan plan = make_galbraith_plan(experiment, {});
    const std::int64_t needed = kbrain_layout_bytes(1000, 20000, 100, SynapseUpdate::Agent, 4);
    CHECK(study_buffer_stride(100) == 104);
    CHECK(needed > 20000 * 104 * 4);  // the synapse buffers at the study's stride dominate
    std::string message;
    try {
      require_memory(plan, 4, std::uint64_t(needed - 1), "test device");
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    CHECK(message.find(std::to_string(needed) + " bytes") != std::string::npos);
    CHECK(message.find("test device has " + std::to_string(needed - 1) + " bytes") != std::string::npos);
    CHECK(message.find(std::to_string(study_layout_bytes(1000, 20000, 100))) != std::string::npos);
    CHECK_NOTHROW(require_memory(plan, 4, std::uint64_t(needed), "test device"));
  }

  TEST_CASE("experiment checks name the key and its line") {
    auto error_of = [](const std::string& toml) {
      try {
        const auto experiment = parse_model_experiment(toml, "bad.toml");
        make_galbraith_plan(experiment, {});
      } catch (const ConfigError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK(error_of(galbraith_toml("topology = \"ring\"\nneurons = 10\nsynapses = 5", "event", 10))
              .find("bad.toml:11: network.synapses applies only to topology = \"random\"") != std::string::npos);
    CHECK(error_of(galbraith_toml("topology = \"file\"\nneurons = 10", "event", 10)).find("needs network.file") !=
          std::string::npos);
    CHECK(error_of(galbraith_toml("topology = \"random\"\nneurons = 10\nsynapses = 101", "event", 10))
              .find("must be in [1, min(N^2, 2^31 - 1)]") != std::string::npos);
    CHECK(error_of(galbraith_toml("topology = \"ring\"\nneurons = 10", "event", 10, "[stimulus]\nneurons = [10]\n"))
              .find("stimulus.neurons neuron 10 is out of range [0, 10)") != std::string::npos);
    CHECK(error_of(galbraith_toml("topology = \"ring\"\nneurons = 10", "sideways", 10)).find("synapse_update") !=
          std::string::npos);
    CHECK(error_of(galbraith_toml("topology = \"ring\"\nneurons = 10", "event", 10, "[compare]\nvariants = [\"agent\", \"warp\"]\n"))
              .find("compare.variants") != std::string::npos);
  }

  TEST_CASE("compare variants: the model's variant setting is swept, other models refuse it") {
    const auto ring_experiment = parse_model_experiment(galbraith_toml("topology = \"ring\"\nneurons = 10", "event", 10), "v.toml");
    const GalbraithPlan agent = make_galbraith_plan(
        ring_experiment,
        PlanRequest{0, 0, 0, "agent"});
    CHECK(agent.update == SynapseUpdate::Agent);
    CHECK(agent.size_label == "ring N=10 agent");
    std::string message;
    try {
      parse_model_experiment("name = \"t\"\n[model]\nkind = \"adex_costa\"\n[simulation]\ndt = 1.0\nsteps = 1\n"
                             "[compare]\nvariants = [\"x\"]\n", "adex.toml");
    } catch (const ConfigError& e) {
      message = e.what();
    }
    CHECK(message.find("the model has no variants") != std::string::npos);
  }
}
