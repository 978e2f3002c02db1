// The dense plastic AdEx model's loop variants (models/adex_costa/): the GPU pass on column groups and the step's end
// by chunk teams and by one team, each against its plain counterpart bit for bit on every backend, and the row and
// launch padding. tests/test_adex_sum_order.cpp has the m̄ summation orders, tests/test_adex_costa.cpp the model's
// rules and the runs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "models/adex_costa/adex_model.hpp"
#include "models/adex_costa/adex_synapse_groups.hpp"
#include "tests/adex_pass_states.hpp"
#include "tests/backend_types.hpp"
#include "tests/device_views.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::adex;

using test::host;
using test::mixed_pass_state;
using test::rule_pass_state;
using test::same_bits;

}  // namespace

TEST_SUITE("adex_costa") {
  // The GPU pass on groups of G columns with R rows in flight (SynapsePassGroups) against a column per thread with
  // one row at a time (G = R = 1), on every backend: the same synapse values, winners, currents and m̄ partial sums,
  // bit for bit, with rows, columns and owed parts mixed; row lengths that are and are not a multiple of G (the last group reaching
  // into the row's padding); and, with the connections set by a rule, the rule computed by the groups against the
  // flags read by the single column. G = 0: the product's launch (launch_gpu_synapse_pass; on a GPU, at these sizes,
  // narrow; on host backends wide), with its bounds.
  template <class Backend, int G, int R>
  void check_column_groups(std::int64_t n_post, const ConnectionRule& rule) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
    CAPTURE(G);
    CAPTURE(R);
    CAPTURE(n_post);
    CAPTURE(int(rule.connectivity));
    CAPTURE(int(rule.parity));
    const std::int64_t n_pre = 150;  // three row blocks, the last one partial
    const auto p = KernelParams<double>::from(AdexCostaParams{}, 1.0);
    const auto fresh = [&] { return rule_pass_state<Exec>(n_pre, n_post, rule); };
    const AdexState<float, Mem> single = fresh(), grouped = fresh();
    for (int pass = 0; pass < 2; ++pass) {
      const SynapsePassGroups<float, Mem, 1, 1> one{SynapsePass<float, Mem>{single, p, 0, n_pre, true}};  // stored flags
      const SynapsePass<float, Mem> base{grouped, p, 0, n_pre, true};
      Kokkos::parallel_for("single", Range(0, one.launch_size(single.blocks)), one);
      if constexpr (G == 0) {
        launch_gpu_synapse_pass(Exec(), "product", base, rule, grouped.blocks);
      } else {
        const SynapsePassGroups<float, Mem, G, R> groups{base, rule};
        Kokkos::parallel_for("groups", Range(0, groups.launch_size(grouped.blocks)), groups);
      }
    }
    CHECK(same_bits(single.R, grouped.R));
    CHECK(same_bits(single.u, grouped.u));
    CHECK(same_bits(single.U, grouped.U));
    CHECK(same_bits(single.A, grouped.A));
    CHECK(same_bits(single.win_row, grouped.win_row));
    CHECK(same_bits(single.win_I, grouped.win_I));
    CHECK(same_bits(single.msum, grouped.msum));
    CHECK(same_bits(single.mcount, grouped.mcount));
    // the passes did change the synapses (so the comparison is not of two untouched states)
    const AdexState<float, Mem> unchanged = fresh();
    const auto A0 = host(unchanged.A), A1 = host(grouped.A);
    int changed = 0;
    for (std::int64_t i = 0; i < n_pre; ++i)
      for (std::int64_t j = 0; j < n_post; ++j) changed += A0(single.slot(i, j)) != A1(single.slot(i, j));
    CHECK(changed > 250);  // 300 of the 5700 synapses are connected under half by both parities
    // ... and only the synapses: a row's padding (past n_post in a pitch of 64) and the threads that pad a row block's
    // groups to whole warps leave it as it was
    REQUIRE(single.pitch > n_post);
    const auto S1 = host(single.A);
    int padding_written = 0;
    for (std::int64_t i = 0; i < n_pre; ++i)
      for (std::int64_t j = n_post; j < single.pitch; ++j) {
        const std::int64_t k = single.slot(i, j);
        padding_written += std::memcmp(&A0(k), &A1(k), sizeof(float)) != 0;
        padding_written += std::memcmp(&A0(k), &S1(k), sizeof(float)) != 0;
      }
    CHECK(padding_written == 0);
  }

  TEST_CASE_TEMPLATE_DEFINE("the column-group pass gives the single-column pass's bits", Backend, adex_column_groups) {
    const ConnectionRule stored{};
    for (const std::int64_t n_post : {36, 37, 38}) {
      check_column_groups<Backend, 0, 0>(n_post, stored);
      check_column_groups<Backend, 2, 2>(n_post, stored);
      check_column_groups<Backend, 1, 2>(n_post, stored);
      check_column_groups<Backend, 1, 4>(n_post, stored);
      check_column_groups<Backend, 4, 1>(n_post, stored);
    }
    for (const Parity parity : {Parity::PostEven, Parity::PreEven, Parity::BothEven}) {
      check_column_groups<Backend, 0, 0>(37, ConnectionRule{Connectivity::Half, parity});
      check_column_groups<Backend, 2, 2>(37, ConnectionRule{Connectivity::Half, parity});
      check_column_groups<Backend, 1, 2>(38, ConnectionRule{Connectivity::Half, parity});
      check_column_groups<Backend, 1, 4>(37, ConnectionRule{Connectivity::Half, parity});
      check_column_groups<Backend, 4, 1>(38, ConnectionRule{Connectivity::Half, parity});
    }
    check_column_groups<Backend, 0, 0>(38, ConnectionRule{Connectivity::All, Parity::PostEven});
    check_column_groups<Backend, 2, 2>(38, ConnectionRule{Connectivity::All, Parity::PostEven});
    check_column_groups<Backend, 4, 1>(37, ConnectionRule{Connectivity::All, Parity::PostEven});
  }
  TEST_CASE_TEMPLATE_APPLY(adex_column_groups, KBRAIN_TEST_BACKENDS);

  // The synapse values in tiles (GPUs' layout) and in arrays (CPUs') on every backend: each layout places every
  // value of every (row, column), padding included, in a slot of its own, and the group pass (the GPU's loop order,
  // wide and narrow) gives the same values, winners, currents and m̄ partial sums in both, bit for bit. Tiles of 4 and
  // 32 columns (the GPU's, one 128-byte line of float); 70 columns: rows of 96 slots, so 3 tiles of 32 and 24 of 4.
  template <class Backend, int G>
  void check_tiles(int tiles) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
    CAPTURE(tiles);
    CAPTURE(G);
    const std::int64_t n_pre = 150, n_post = 70;
    const auto p = KernelParams<double>::from(AdexCostaParams{}, 1.0);
    const AdexState<float, Mem> arrays = mixed_pass_state<Exec>(n_pre, n_post, -1);
    const AdexState<float, Mem> tiled = mixed_pass_state<Exec>(n_pre, n_post, tiles);
    REQUIRE(tiled.pitch == 96);
    // every (variable, row, column) its own slot of the one buffer
    std::vector<int> hits(std::size_t(tiled.values.extent(0)), 0);
    for (std::int64_t i = 0; i < n_pre; ++i)
      for (std::int64_t j = 0; j < tiled.pitch; ++j)
        for (int v = 0; v < 4; ++v) ++hits[std::size_t(tiled.slot(i, j) + v * (std::int64_t(1) << tiles))];
    CHECK(std::count(hits.begin(), hits.end(), 1) == std::int64_t(hits.size()));
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& st : {arrays, tiled}) {
        const SynapsePassGroups<float, Mem, G, 2> groups{SynapsePass<float, Mem>{st, p, 0, n_pre, true}};
        Kokkos::parallel_for("groups", Range(0, groups.launch_size(st.blocks)), groups);
      }
    const auto R0 = host(arrays.R), u0 = host(arrays.u), U0 = host(arrays.U), A0 = host(arrays.A);
    const auto R1 = host(tiled.R), u1 = host(tiled.u), U1 = host(tiled.U), A1 = host(tiled.A);
    const AdexState<float, Mem> start = mixed_pass_state<Exec>(n_pre, n_post, tiles);
    const auto A_start = host(start.A);
    // a value view holds the tiles' buffer: it outlives the state it came from
    const auto lone_A = mixed_pass_state<Exec>(n_pre, n_post, tiles).A;
    CHECK(lone_A.use_count() > 0);
    CHECK(host(lone_A)(std::size_t(tiled.slot(3, 5))) == A_start(std::size_t(tiled.slot(3, 5))));
    int differ = 0, changed = 0;
    for (std::int64_t i = 0; i < n_pre; ++i)
      for (std::int64_t j = 0; j < tiled.pitch; ++j) {
        const std::int64_t a = arrays.slot(i, j), t = tiled.slot(i, j);
        differ += std::memcmp(&R0(a), &R1(t), sizeof(float)) != 0;
        differ += std::memcmp(&u0(a), &u1(t), sizeof(float)) != 0;
        differ += std::memcmp(&U0(a), &U1(t), sizeof(float)) != 0;
        differ += std::memcmp(&A0(a), &A1(t), sizeof(float)) != 0;
        changed += A_start(t) != A1(t);
      }
    CHECK(differ == 0);
    CHECK(changed > 1000);  // the passes changed the values (so the comparison is not of two untouched states)
    CHECK(same_bits(arrays.win_row, tiled.win_row));
    CHECK(same_bits(arrays.win_I, tiled.win_I));
    CHECK(same_bits(arrays.msum, tiled.msum));
    CHECK(same_bits(arrays.mcount, tiled.mcount));
  }

  TEST_CASE_TEMPLATE_DEFINE("the synapse values in tiles give the arrays' bits", Backend, adex_tiles) {
    for (const int tiles : {2, 5}) {
      check_tiles<Backend, 2>(tiles);
      check_tiles<Backend, 1>(tiles);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(adex_tiles, KBRAIN_TEST_BACKENDS);

  TEST_CASE("the GPU pass runs wide where its wide launch fills half the resident threads, narrow below") {
    struct Gpu {  // 132 multiprocessors of 2048 threads: 84 480 resident under the wide pass's bounds
      int concurrency() const { return 132 * 2048; }
    };
    CHECK_FALSE(gpu_pass_is_wide(Gpu{}, 1000, 16));  // 16 blocks x 512 threads
    CHECK_FALSE(gpu_pass_is_wide(Gpu{}, 2000, 32));  // 32 x 1024
    CHECK(gpu_pass_is_wide(Gpu{}, 3000, 47));        // 47 x 1504 = 70 688
    CHECK(gpu_pass_is_wide(Gpu{}, 10000, 157));
    CHECK(gpu_pass_is_wide(Gpu{}, 2624, 33));         // 33 x 1312 = 43 296: just over half
    CHECK_FALSE(gpu_pass_is_wide(Gpu{}, 2560, 32));   // 32 x 1280 = 40 960: just under
    CHECK(gpu_pass_is_wide(Kokkos::DefaultHostExecutionSpace(), 36, 3));  // host backends: any size (not launched)
  }

  // The step's end in one launch (GPUs: StepEndTeams, a team per row block, a chunk a thread, m̄ by the team that
  // finishes last) against StepEnd and StepMean (host backends), on every backend (team size 1 on host backends): the
  // same chunk and block sums, m̄, currents and owed flags, bit for bit, twice (the second time after the first reset
  // the blocks' count). 600 columns: two whole chunks and a partial one; 9 row blocks; on GPUs also teams of two
  // threads (the chunks and the blocks' sums then take several rounds).
  TEST_CASE_TEMPLATE_DEFINE("the one-launch step end gives StepEnd's and StepMean's bits", Backend, adex_step_end) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
    const std::int64_t n_pre = 9 * kRowsPerBlock - 20, n_post = 600;
    const auto p = KernelParams<double>::from(AdexCostaParams{}, 1.0);
    const AdexState<float, Mem> threads = mixed_pass_state<Exec>(n_pre, n_post), teams = mixed_pass_state<Exec>(n_pre, n_post);
    REQUIRE(threads.chunks == 3);
    REQUIRE(threads.blocks == 9);
    for (const auto& st : {threads, teams}) {
      const SynapsePassGroups<float, Mem, 1, 1> pass{SynapsePass<float, Mem>{st, p, 0, n_pre, true}};
      Kokkos::parallel_for("pass", Range(0, pass.launch_size(st.blocks)), pass);
    }
    const StepEnd<float, Mem> by_thread{threads, true, true};
    Kokkos::parallel_for("by_thread", Range(0, by_thread.size()), by_thread);
    const StepMean<float, Mem, Exec> mean{threads, true, 1, StepMean<float, Mem, Exec>::kPiece};
    Kokkos::parallel_for("mean", mean.policy(), mean);
    for (const int team_size : {Backend::is_gpu ? StepEndTeams<float, Mem, Exec>::kTeamSize : 1, Backend::is_gpu ? 2 : 1})
      for (int launch = 0; launch < 2; ++launch) {
        CAPTURE(team_size);
        CAPTURE(launch);
        Kokkos::deep_copy(teams.mbar, -1.0);
        Kokkos::deep_copy(teams.block_sum, -1.0);
        const StepEndTeams<float, Mem, Exec> by_team{teams, true, true, team_size};
        Kokkos::parallel_for("by_team", by_team.policy(), by_team);
        CHECK(same_bits(threads.chunk_sum, teams.chunk_sum));
        CHECK(same_bits(threads.chunk_count, teams.chunk_count));
        CHECK(same_bits(threads.block_sum, teams.block_sum));
        CHECK(same_bits(threads.block_count, teams.block_count));
        CHECK(same_bits(threads.mbar, teams.mbar));
        CHECK(host(teams.blocks_done)(0) == 0);
        CHECK(same_bits(threads.I, teams.I));
        CHECK(same_bits(threads.post_prev, teams.post_prev));
      }
    // the sums and currents were written (so the comparison is not of two untouched states)
    const auto sums = host(teams.chunk_sum);
    const auto counts = host(teams.chunk_count);
    const auto currents = host(teams.I);
    int nonzero = 0;
    for (std::size_t k = 0; k < sums.size(); ++k) nonzero += sums(k) > 0 && counts(k) > 0;
    CHECK(nonzero == int(sums.size()));
    CHECK(host(teams.mbar)(0) > 0);
    int set = 0;
    for (std::size_t j = 0; j < currents.size(); ++j) set += currents(j) != 0;
    CHECK(set > n_post / 2);
  }
  TEST_CASE_TEMPLATE_APPLY(adex_step_end, KBRAIN_TEST_BACKENDS);

  TEST_CASE("a column's winning block is the highest block with a winner, across batches of blocks") {
    using Exec = Kokkos::DefaultHostExecutionSpace;
    const AdexState<float, Exec::memory_space> st = mixed_pass_state<Exec>(40 * kRowsPerBlock, 8);
    REQUIRE(st.blocks == 40);  // three batches of 16 blocks from the top: 39-24, 23-8, 7-0
    Kokkos::deep_copy(st.win_row, -1);
    const std::vector<std::vector<std::int64_t>> winners = {{}, {0}, {39}, {5, 17}, {16}, {23, 2}, {24, 8}, {8}};
    for (std::int64_t j = 0; j < 8; ++j)
      for (const std::int64_t b : winners[std::size_t(j)]) st.win_row(b * st.n_post + j) = int(b * kRowsPerBlock + 3);
    const std::int64_t expected[8] = {-1, 0, 39, 17, 16, 23, 24, 8};
    for (std::int64_t j = 0; j < 8; ++j) {
      CAPTURE(j);
      CHECK(winning_block(st, j) == expected[j]);
    }
  }

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
}
