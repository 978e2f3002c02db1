// The dense plastic AdEx model (models/adex_costa/): every backend against Serial (host backends bit-identical),
// the winner rule of the synaptic current, the deferred m̄ part of the post update, and the experiment checks (the
// loop variants are in tests/test_adex_kernels.cpp).
// The literal NumPy reference of the spec runs from ctest too (tests/neofytou/).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/serial/serial_backend.hpp"
#include "models/adex_costa/adex_model.hpp"
#include "models/registry.hpp"
#include "tests/backend_types.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::adex;

std::string adex_toml(const std::string& network, const std::string& spikes, int steps = 30) {
  return "name = \"t\"\n[model]\nkind = \"adex_costa\"\n[simulation]\ndt = 1.0\nsteps = " + std::to_string(steps) +
         "\n[network]\n" + network + "\n[spikes]\n" + spikes + "\n";
}

// Every variable of every neuron and connected synapse after the run, read as the samplers read them.
template <class Backend, class Real>
std::vector<double> final_state(const AdexPlan& plan, RunResult* result = nullptr) {
  RunRequest request;
  RunResult res;
  AdexSimulation<Backend, Real> sim(plan, request, res);
  for (std::int64_t n = 0; n < plan.steps; ++n) sim.step();
  sim.finish(res);
  if (result) *result = res;
  const auto h = host_copy(sim.state());
  std::vector<double> out;
  for (int v = V_M; v <= I_SYN; ++v)
    for (std::int64_t j = 0; j < plan.n_post; ++j) out.push_back(double(h(v, j)));
  for (int v = SYN_U; v < NUM_ADEX_VARS; ++v)
    for (std::int64_t id = 0; id < plan.synapse_slots(); ++id)
      if (plan.connected(id / plan.n_post, id % plan.n_post)) out.push_back(double(h(v, id)));
  return out;
}

double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    worst = std::max(worst, std::fabs(a[k] - b[k]) / std::max({std::fabs(a[k]), std::fabs(b[k]), 1e-30}));
  return worst;
}

const char* const kCases[][2] = {
    // 130 neurons: three row blocks, so the winner and the m̄ sums cross blocks
    {"architecture = \"mxm\"\nneurons = 130", "pattern = \"all\""},
    {"architecture = \"mxm\"\nneurons = 130\nconnectivity = \"half\"\nparity = \"both_even\"", "pattern = \"even\""},
    {"architecture = \"mxm\"\nneurons = 70", "pattern = \"model\""},
    {"architecture = \"nxm\"\ninputs = 150\nneurons = 3", "pattern = \"poisson_gaussian\"\npositions = [25, 75]\nphase_steps = [10]"},
    {"architecture = \"nxm\"\ninputs = 90\nneurons = 40\npost_events = \"imposed\"", "pattern = \"even\""},
    {"architecture = \"nxm\"\ninputs = 90\nneurons = 40\npost_events = \"none\"", "pattern = \"all\""},
};

}  // namespace

TEST_SUITE("adex_costa") {
  TEST_CASE_TEMPLATE_DEFINE("every backend agrees with Serial: host backends bit-identical, GPUs within rounding", Backend,
                            adex_matches_serial) {
    for (const auto& c : kCases) {
      CAPTURE(c[0]);
      CAPTURE(c[1]);
      const ExperimentConfig cfg = parse_model_experiment(adex_toml(c[0], c[1]), "case.toml");
      const AdexPlan plan = make_adex_plan(cfg, {});
      const auto serial_d = final_state<SerialBackend, double>(plan);
      const auto serial_f = final_state<SerialBackend, float>(plan);
      const auto here_d = final_state<Backend, double>(plan);
      const auto here_f = final_state<Backend, float>(plan);
      if (!Backend::is_gpu) {
        CHECK(here_d == serial_d);
        CHECK(here_f == serial_f);
      } else {
        CHECK(max_rel_diff(here_d, serial_d) < 1e-9);
        CHECK(max_rel_diff(here_f, serial_f) < 1e-4);
      }
    }
  }
  TEST_CASE_TEMPLATE_APPLY(adex_matches_serial, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("the current of a column is the largest connected spiking row's s A R u", Backend,
                            adex_winner_rule) {
    // Even rows fire every step; both_even connects even rows to even columns, so row 128 (block 2) wins each even
    // column, and odd columns never receive a current.
    const ExperimentConfig cfg = parse_model_experiment(
        adex_toml("architecture = \"mxm\"\nneurons = 130\nconnectivity = \"half\"\nparity = \"both_even\"",
                  "pattern = \"even\""),
        "case.toml");
    const AdexPlan plan = make_adex_plan(cfg, {});
    RunRequest request;
    RunResult res;
    AdexSimulation<Backend, double> sim(plan, request, res);
    sim.step();
    auto before = host_copy(sim.state());
    before.t = 1.0;  // the synapse values the step-1 presynaptic update starts from
    sim.step();
    const auto after = host_copy(sim.state());
    for (std::int64_t j = 0; j < plan.n_post; ++j) {
      CAPTURE(j);
      if (j % 2) {
        CHECK(after(I_SYN, j) == 0.0);
        continue;
      }
      const std::int64_t id = 128 * plan.n_post + j;
      const double expected = plan.params.s * before(SYN_A, id) * before(SYN_R, id) * before(SYN_USE, id);
      if (Backend::is_gpu)
        CHECK(after(I_SYN, j) == doctest::Approx(expected).epsilon(1e-12));
      else
        CHECK(after(I_SYN, j) == expected);
      CHECK(expected > 0);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(adex_winner_rule, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("A after a post event: A + etaA AFFp FFp FBn minus etaA/2 of the mean over fired columns",
                            Backend, adex_mean_rule) {
    // All fire every step: every synapse's post update sees the same m̄ = mean of AFFp FFp FBn over all synapses.
    const ExperimentConfig cfg = parse_model_experiment(adex_toml("architecture = \"mxm\"\nneurons = 130", "pattern = \"all\""), "case.toml");
    const AdexPlan plan = make_adex_plan(cfg, {});
    RunRequest request;
    RunResult res;
    AdexSimulation<Backend, double> sim(plan, request, res);
    sim.step();
    sim.step();
    auto before = host_copy(sim.state());
    before.t = 2.0;
    sim.step();
    const auto after = host_copy(sim.state());
    const auto& p = plan.params;
    // at step 2 every row fired: FFp of the post update is the decayed trace + 1; FBn the decayed column trace
    double sum = 0;
    std::vector<double> a_mid(static_cast<std::size_t>(plan.synapse_slots()));
    for (std::int64_t id = 0; id < plan.synapse_slots(); ++id) {
      const double term = p.AFFp * (before(SYN_FFP, id) + 1.0) * before(SYN_FBN, id);
      a_mid[static_cast<std::size_t>(id)] = before(SYN_A, id) + p.etaA * term;
      sum += term;
    }
    const double mean = sum / double(plan.synapse_slots());
    double worst = 0;
    for (std::int64_t id = 0; id < plan.synapse_slots(); id += 7) {
      const double expected = std::min(p.Amax, std::max(p.Amin, a_mid[static_cast<std::size_t>(id)] - p.etaA * 0.5 * mean));
      worst = std::max(worst, std::fabs(after(SYN_A, id) - expected) / std::max(1e-30, std::fabs(expected)));
    }
    CHECK(worst < 1e-12);
    CHECK(mean > 0);
  }
  TEST_CASE_TEMPLATE_APPLY(adex_mean_rule, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("a device budget streams the synapses (GPUs) with the in-core results, bit for bit", Backend,
                            adex_out_of_core) {
    using Mem = typename Backend::memory_space;
    for (const char* network : {"architecture = \"mxm\"\nneurons = 300", "architecture = \"nxm\"\ninputs = 330\nneurons = 50"}) {
      CAPTURE(network);
      const ExperimentConfig in_core = parse_model_experiment(adex_toml(network, "pattern = \"all\"", 7), "case.toml");
      const AdexPlan plan = make_adex_plan(in_core, {});
      // the smallest budget: two chunks of one row block beside the rest of the state, so 5 or 6 chunks
      const std::int64_t budget = AdexState<float, Mem>::fixed_bytes(plan.n_pre, plan.n_post) +
                                  2 * kRowsPerBlock * AdexState<float, Mem>::row_bytes(plan.n_post);
      AdexPlan streamed = plan;
      streamed.device_budget = double(budget);
      RunResult res;
      // 7 steps: both chunk orders, and the chunk a step ends with reused by the next
      CHECK(final_state<Backend, float>(streamed, &res) == final_state<Backend, float>(plan));
      CHECK((res.strategy.find("out-of-core") != std::string::npos) == Backend::is_gpu);
      CHECK((res.figure("streamed_bytes") > 0) == Backend::is_gpu);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(adex_out_of_core, KBRAIN_TEST_BACKENDS);

  TEST_CASE("bytes moved: 33 B per synapse-step in float when every row and column fires, the flag byte alone when none") {
    // every neuron fires every step: R, u, U, A read and written (32 B) plus the connection byte, per synapse-step
    const ExperimentConfig all = parse_model_experiment(adex_toml("architecture = \"mxm\"\nneurons = 20", "pattern = \"all\"", 5),
                                                        "all.toml");
    RunResult res;
    (void)final_state<SerialBackend, float>(make_adex_plan(all, {}), &res);
    CHECK(res.bytes_moved == doctest::Approx(5.0 * 20 * 20 * 33));
    CHECK(res.figure("pre_events") == 5.0 * 20);  // the events, counted per neuron and summed at the end
    CHECK(res.figure("post_events") == 5.0 * 20);
    (void)final_state<SerialBackend, double>(make_adex_plan(all, {}), &res);
    CHECK(res.bytes_moved == doctest::Approx(5.0 * 20 * 20 * 65));
    // NxM inputs with no post updates: the even rows fire, so half the rows' synapses move their reals
    const ExperimentConfig even = parse_model_experiment(
        adex_toml("architecture = \"nxm\"\ninputs = 10\nneurons = 8\npost_events = \"none\"", "pattern = \"even\"", 4),
        "even.toml");
    (void)final_state<SerialBackend, float>(make_adex_plan(even, {}), &res);
    CHECK(res.bytes_moved == doctest::Approx(4.0 * 10 * 8 * 1 + 4.0 * 5 * 8 * 32));
    CHECK(res.figure("pre_events") == 4.0 * 5);
    CHECK(res.figure("post_events") == 0);
  }

  TEST_CASE("experiment checks name the key and line") {
    auto error_of = [](const std::string& network, const std::string& spikes) {
      try {
        const ExperimentConfig cfg = parse_model_experiment(adex_toml(network, spikes), "bad.toml");
        (void)make_adex_plan(cfg, {});
      } catch (const ConfigError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK(error_of("architecture = \"mxm\"\nparity = \"pre_even\"", "pattern = \"all\"").find("bad.toml:9: network.parity applies only to connectivity = \"half\"") != std::string::npos);
    CHECK(error_of("architecture = \"mxm\"\nneurons = 10", "pattern = \"poisson_gaussian\"").find("spikes.pattern") != std::string::npos);
    CHECK(error_of("architecture = \"nxm\"\nneurons = 10", "pattern = \"all\"").find("network.inputs must be >= 1") != std::string::npos);
    CHECK(error_of("architecture = \"mxm\"\nneurons = 1000000000", "pattern = \"all\"").find("overflows 64-bit") != std::string::npos);
    CHECK(error_of("architecture = \"mxm\"\nneurons = 10\nconnectivity = \"half\"\nparity = \"post_even\"\nsize = 3", "pattern = \"all\"").find("unknown key network.size") != std::string::npos);
    CHECK(error_of("architecture = \"mxm\"\nneurons = 1\nconnectivity = \"half\"", "pattern = \"all\"").find("needs neurons >= 2") != std::string::npos);
    CHECK(error_of("architecture = \"nxm\"\ninputs = 3\nneurons = 2", "pattern = \"poisson_gaussian\"\npositions = [1, 2]\nphase_steps = [1, 2, 3]").find("spikes.phase_steps") != std::string::npos);

    // a malformed spike-time file: the message names the file and its line
    const auto dir = std::filesystem::temp_directory_path() / "kbrain_adex_bad_spikes";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "spikes.txt") << "# source step\n0 1\n2 x\n";
    std::ofstream(dir / "case.toml") << adex_toml("architecture = \"nxm\"\ninputs = 3\nneurons = 2", "pattern = \"file\"\nfile = \"spikes.txt\"");
    std::string message;
    try {
      const auto experiment = load_model_experiment(dir / "case.toml");
      (void)make_adex_plan(experiment, {});
    } catch (const ConfigError& e) {
      message = e.what();
    }
    CHECK(message.find("spikes.txt:3: expected two integers") != std::string::npos);
    std::ofstream(dir / "spikes.txt") << "5 1\n";
    message.clear();
    try {
      const auto experiment = load_model_experiment(dir / "case.toml");
      (void)make_adex_plan(experiment, {});
    } catch (const ConfigError& e) {
      message = e.what();
    }
    CHECK(message.find("spikes.txt:1: source 5 is out of range [0, 3)") != std::string::npos);
    std::filesystem::remove_all(dir);
  }

  TEST_CASE("a network larger than the device is refused before allocating, naming the bytes") {
    std::string message;
    try {
      require_device_memory(std::int64_t(1) << 40, std::uint64_t(1) << 30, "test device", 1 << 20, 1 << 20, true,
                            1000);
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    CHECK(message.find("1099511627776 bytes") != std::string::npos);
    CHECK(message.find("test device has 1.00 GiB free") != std::string::npos);
    CHECK(message.find("--device-budget") != std::string::npos);
    // where the synapses cannot be streamed: the largest network.neurons that fits
    message.clear();
    try {
      require_device_memory(std::int64_t(1) << 40, std::uint64_t(1) << 30, "test device", 1 << 20, 1 << 20, false,
                            16000);
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    CHECK(message.find("at most 16000 neurons fit (network.neurons)") != std::string::npos);
  }

  TEST_CASE("a run refused for its device memory says how many neurons fit") {
    // 200000 neurons all to all: 1.3 TB of synapses in double, beyond any host (the serial backend's memory)
    const ExperimentConfig cfg =
        parse_model_experiment(adex_toml("architecture = \"mxm\"\nneurons = 200000", "pattern = \"all\""), "case.toml");
    const AdexPlan plan = make_adex_plan(cfg, {});
    std::string message;
    try {
      AdexSimulation<SerialBackend, double>::memory(plan, RunRequest{});
    } catch (const ConfigError& e) {
      message = e.what();
    }
    CHECK(message.find("the dense 200000 x 200000 network needs") != std::string::npos);
    const auto at = message.find("at most ");
    REQUIRE(at != std::string::npos);
    const long long fit = std::stoll(message.substr(at + 8));
    CHECK(fit > 0);
    CHECK(fit < 200000);
  }

  TEST_CASE("file connectivity and spike lists drive the same kernels") {
    const auto dir = std::filesystem::temp_directory_path() / "kbrain_adex_files";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "conn.txt") << "# pre post\n0 0\n2 1\n1 1\n";
    std::ofstream(dir / "spikes.txt") << "2 0\n1 0\n0 3\n";
    std::ofstream(dir / "case.toml") << adex_toml(
        "architecture = \"nxm\"\ninputs = 3\nneurons = 2\nconnectivity = \"file\"\nfile = \"conn.txt\"\npost_events = \"none\"",
        "pattern = \"file\"\nfile = \"spikes.txt\"", 5);
    const auto experiment = load_model_experiment(dir / "case.toml");
    const AdexPlan plan = make_adex_plan(experiment, {});
    CHECK(plan.connections == 3);
    CHECK(plan.connected(2, 1));
    CHECK_FALSE(plan.connected(0, 1));
    RunRequest request;
    RunResult res;
    AdexSimulation<SerialBackend, double> sim(plan, request, res);
    sim.step();  // rows 1 and 2 fire into column 1: row 2 wins (u = 0 at the first event: current 0)
    auto h = host_copy(sim.state());
    CHECK(h.st.pre_flag(0) == 0);
    CHECK(h.st.pre_flag(1) == 1);
    CHECK(h.st.pre_flag(2) == 1);
    sim.step();
    sim.step();
    sim.step();  // row 0 fires at step 3 into column 0
    h = host_copy(sim.state());
    CHECK(h.st.pre_flag(0) == 1);
    CHECK(h.st.pre_flag(1) == 0);
    std::filesystem::remove_all(dir);
  }
}
