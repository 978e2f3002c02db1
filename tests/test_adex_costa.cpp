// The dense plastic AdEx model (models/adex_costa/): every backend against Serial (host backends bit-identical),
// the winner rule of the synaptic current, the deferred m̄ part of the post update, and the experiment checks.
// The literal NumPy reference of the spec runs from ctest too (tests/neofytou/).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
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

// A state for one synapse pass with rows, columns and owed m̄ parts mixed, and varied synapse values.
template <class Exec>
AdexState<float, typename Exec::memory_space> mixed_pass_state(std::int64_t n_pre, std::int64_t n_post) {
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  AdexState<float, typename Exec::memory_space> st;
  st.allocate(n_pre, 0, n_pre, n_post, false);
  auto s = st;
  Kokkos::parallel_for(
      "fill_rows", Range(0, n_pre), KOKKOS_LAMBDA(const std::int64_t i) {
        s.pre_flag(i) = i % 3 != 0;
        s.decay_r(i) = 0.9 - 1e-3 * double(i % 11);
        s.decay_u(i) = 0.8 + 1e-3 * double(i % 7);
        s.ffp_before(i) = 1.5 + 0.01 * double(i % 5);
        s.ffp_now(i) = 2.5 - 0.01 * double(i % 3);
      });
  Kokkos::parallel_for(
      "fill_columns", Range(0, n_post), KOKKOS_LAMBDA(const std::int64_t j) {
        s.post_flag(j) = j % 4 == 1;
        s.post_prev(j) = j % 5 == 2;
        s.fbp_before(j) = 0.7 + 0.01 * double(j % 6);
        s.fbn_before(j) = 0.3 + 0.02 * double(j % 4);
        if (j == 0) s.mbar(0) = 0.01;
      });
  Kokkos::parallel_for(
      "fill_synapses", Range(0, std::int64_t(st.R.extent(0))), KOKKOS_LAMBDA(const std::int64_t id) {  // the padding too
        s.conn(id) = id % 7 != 0;
        s.A(id) = float(0.5 + 1e-3 * double(id % 97));
        s.U(id) = float(0.3 + 1e-3 * double(id % 13));
        s.R(id) = float(0.9 - 1e-3 * double(id % 17));
        s.u(id) = float(0.2 + 1e-3 * double(id % 19));
      });
  return st;
}

// A device view's values on the host.
template <class V>
auto host(const V& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

// Whether two device views hold the same bits (and are not empty).
template <class V>
bool same(const V& a, const V& b) {
  const auto ha = host(a), hb = host(b);
  if (ha.size() != hb.size()) return false;
  for (std::size_t k = 0; k < ha.size(); ++k)
    if (std::memcmp(&ha(k), &hb(k), sizeof(ha(k))) != 0) return false;
  return ha.size() > 0;
}

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

  // The GPU pass on column pairs (SynapsePassPairs) against a column per thread (SynapsePass), on every backend: the
  // same synapse values, winners, currents and m̄ partial sums, bit for bit, with rows, columns and owed parts mixed.
  TEST_CASE_TEMPLATE_DEFINE("the column-pair pass gives the single-column pass's bits", Backend, adex_column_pairs) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
    const std::int64_t n_pre = 150, n_post = 36;  // three row blocks, the last one partial
    const auto p = KernelParams<double>::from(AdexCostaParams{}, 1.0);
    const AdexState<float, Mem> single = mixed_pass_state<Exec>(n_pre, n_post), paired = mixed_pass_state<Exec>(n_pre, n_post);
    REQUIRE(SynapsePassPairs<float, Mem>::fits(n_post));
    for (int pass = 0; pass < 2; ++pass) {
      const SynapsePass<float, Mem> one{single, p, 0, n_pre, true};
      const SynapsePassPairs<float, Mem> two{SynapsePass<float, Mem>{paired, p, 0, n_pre, true}};
      Kokkos::parallel_for("single", Range(0, one.launch_size(single.blocks)), one);
      Kokkos::parallel_for("pairs", Range(0, two.launch_size(paired.blocks)), two);
    }
    CHECK(same(single.R, paired.R));
    CHECK(same(single.u, paired.u));
    CHECK(same(single.U, paired.U));
    CHECK(same(single.A, paired.A));
    CHECK(same(single.win_row, paired.win_row));
    CHECK(same(single.win_I, paired.win_I));
    CHECK(same(single.msum, paired.msum));
    CHECK(same(single.mcount, paired.mcount));
    // the passes did change the synapses (so the comparison is not of two untouched states)
    const auto A0 = host(mixed_pass_state<Exec>(n_pre, n_post).A), A1 = host(paired.A);
    int changed = 0;
    for (std::size_t k = 0; k < A0.size(); ++k) changed += A0(k) != A1(k);
    CHECK(changed > 1000);
    // ... and only the synapses: a row's padding (36 columns in a pitch of 64) and the threads that pad a row block's
    // columns to whole warps touch nothing
    REQUIRE(single.pitch > n_post);
    const auto S1 = host(single.A);
    int padding_written = 0;
    for (std::int64_t i = 0; i < n_pre; ++i)
      for (std::int64_t j = n_post; j < single.pitch; ++j) {
        const std::int64_t k = i * single.pitch + j;
        padding_written += std::memcmp(&A0(k), &A1(k), sizeof(float)) != 0;
        padding_written += std::memcmp(&A0(k), &S1(k), sizeof(float)) != 0;
      }
    CHECK(padding_written == 0);
  }
  TEST_CASE_TEMPLATE_APPLY(adex_column_pairs, KBRAIN_TEST_BACKENDS);

  // The step's end by a team per chunk (GPUs: StepEndTeams, the chunk copied to scratch) against a thread per chunk
  // (host backends: StepEnd), on every backend (team size 1 on host backends): the same chunk sums, currents and
  // owed flags, bit for bit. 600 columns: two whole chunks and a partial one; three row blocks.
  TEST_CASE_TEMPLATE_DEFINE("the step end by chunk teams gives the thread-per-chunk step end's bits", Backend, adex_step_end) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
    const std::int64_t n_pre = 150, n_post = 600;
    const auto p = KernelParams<double>::from(AdexCostaParams{}, 1.0);
    const AdexState<float, Mem> threads = mixed_pass_state<Exec>(n_pre, n_post), teams = mixed_pass_state<Exec>(n_pre, n_post);
    REQUIRE(threads.chunks == 3);
    for (const auto& st : {threads, teams}) {
      const SynapsePass<float, Mem> pass{st, p, 0, n_pre, true};
      Kokkos::parallel_for("pass", Range(0, pass.launch_size(st.blocks)), pass);
    }
    const StepEnd<float, Mem> by_thread{threads, true, true};
    Kokkos::parallel_for("by_thread", Range(0, by_thread.size()), by_thread);
    const StepEndTeams<float, Mem, Exec> by_team{teams, true, true, Backend::is_gpu ? 32 : 1};
    Kokkos::parallel_for("by_team", by_team.policy(), by_team);
    CHECK(same(threads.chunk_sum, teams.chunk_sum));
    CHECK(same(threads.chunk_count, teams.chunk_count));
    CHECK(same(threads.I, teams.I));
    CHECK(same(threads.post_prev, teams.post_prev));
    // the sums and currents were written (so the comparison is not of two untouched states)
    const auto sums = host(teams.chunk_sum);
    const auto counts = host(teams.chunk_count);
    const auto currents = host(teams.I);
    int nonzero = 0;
    for (std::size_t k = 0; k < sums.size(); ++k) nonzero += sums(k) > 0 && counts(k) > 0;
    CHECK(nonzero == int(sums.size()));
    int set = 0;
    for (std::size_t j = 0; j < currents.size(); ++j) set += currents(j) != 0;
    CHECK(set > n_post / 2);
  }
  TEST_CASE_TEMPLATE_APPLY(adex_step_end, KBRAIN_TEST_BACKENDS);

  // StepMean adds the chunk sums of each block in order, then the blocks in order, whatever its team size and however
  // many pieces of blocks its scratch holds at a time: the bits of a plain loop. Summands of very different sizes,
  // so that any other order gives other bits. 9 row blocks of 3 chunks; pieces of 4 blocks (three pieces, the last
  // partial) and of every block at once.
  TEST_CASE_TEMPLATE_DEFINE("the step mean gives a plain loop's bits for any team size and piece", Backend, adex_step_mean) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    const AdexState<float, Mem> st = mixed_pass_state<Exec>(520, 600);
    REQUIRE(st.blocks == 9);
    REQUIRE(st.chunks == 3);
    auto sums = Kokkos::create_mirror_view(st.chunk_sum);
    auto counts = Kokkos::create_mirror_view(st.chunk_count);
    for (std::size_t k = 0; k < sums.size(); ++k) {
      sums(k) = std::ldexp(1.0 + 0.001 * double(k % 13), int(k % 19) * 3 - 27);
      counts(k) = std::int64_t(k % 4);
    }
    Kokkos::deep_copy(st.chunk_sum, sums);
    Kokkos::deep_copy(st.chunk_count, counts);
    double plain = 0;
    long long plain_count = 0;
    std::vector<double> block_plain(9, 0.0);
    for (std::int64_t b = 0; b < 9; ++b) {
      long long c = 0;
      for (std::int64_t q = 0; q < 3; ++q) block_plain[b] += sums(b * 3 + q), c += counts(b * 3 + q);
      plain += block_plain[b], plain_count += c;
    }
    const double want = plain / double(plain_count);
    double backwards = 0;  // the blocks in the other order: other bits (so the check below can fail)
    for (std::int64_t b = 8; b >= 0; --b) backwards += block_plain[b];
    CHECK(backwards / double(plain_count) != want);
    for (const int team_size : {1, Backend::is_gpu ? 3 : 1, Backend::is_gpu ? 128 : 1})  // host teams: one thread
      for (const std::int64_t piece : {std::int64_t(4), StepMean<float, Mem, Exec>::kPiece}) {
        CAPTURE(team_size);
        CAPTURE(piece);
        Kokkos::deep_copy(st.mbar, -1.0);
        const StepMean<float, Mem, Exec> mean{st, true, team_size, piece};
        Kokkos::parallel_for("mean", mean.policy(), mean);
        const auto mbar = host(st.mbar);
        CHECK(std::memcmp(&mbar(0), &want, sizeof(double)) == 0);
        const auto blocks = host(st.block_sum);
        int block_differs = 0;
        for (std::int64_t b = 0; b < 9; ++b) block_differs += std::memcmp(&blocks(b), &block_plain[b], sizeof(double)) != 0;
        CHECK(block_differs == 0);
      }
  }
  TEST_CASE_TEMPLATE_APPLY(adex_step_mean, KBRAIN_TEST_BACKENDS);

  // ordered_sum loads its entries in batches (a partial last one included) but must add them one by one in index
  // order: the m̄ tree's definition. Summands of very different sizes make any other order give other bits.
  TEST_CASE("ordered sums add in index order, whatever the batch boundaries") {
    Kokkos::View<double*, Kokkos::HostSpace> sums("sums", 300);
    Kokkos::View<long long*, Kokkos::HostSpace> counts("counts", 300);
    for (std::int64_t k = 0; k < 300; ++k) {
      sums(k) = std::ldexp(1.0 + 0.001 * double(k % 17), int(k % 23) * 3 - 30);
      counts(k) = k % 5;
    }
    int reordered_differs = 0;
    for (const std::int64_t first : {0, 1, 7, 16}) {
      for (const std::int64_t length : {0, 1, 15, 16, 17, 40, 256, 283}) {
        double naive = 0, sum = -1;
        long long naive_count = 0, count = -1;
        for (std::int64_t k = first; k < first + length; ++k) naive += sums(k), naive_count += counts(k);
        ordered_sum(sums, counts, first, first + length, sum, count);
        CHECK(std::memcmp(&sum, &naive, sizeof(double)) == 0);
        CHECK(count == naive_count);
        double backwards = 0;  // the same summands in another order: other bits (so the check above can fail)
        for (std::int64_t k = first + length - 1; k >= first; --k) backwards += sums(k);
        reordered_differs += backwards != naive;
      }
    }
    CHECK(reordered_differs > 0);
  }

  TEST_CASE("a synapse row is whole 128-byte lines, and the GPU launch whole warps of a row block's columns") {
    using F = AdexState<float, Kokkos::HostSpace>;
    using D = AdexState<double, Kokkos::HostSpace>;
    CHECK(F::row_pitch(1) == 32);
    CHECK(F::row_pitch(32) == 32);
    CHECK(F::row_pitch(10000) == 10016);  // 40 000 bytes is 312.5 lines
    CHECK(D::row_pitch(10000) == 10000);  // 80 000 bytes is 625 lines
    CHECK(D::row_pitch(17) == 32);
    CHECK(F::row_bytes(10000) == 10016 * F::bytes_per_slot());
    CHECK(gpu_columns(10000) == 10016);
    CHECK(gpu_columns(5000) == 5024);
    CHECK(gpu_columns(64) == 64);
  }

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
