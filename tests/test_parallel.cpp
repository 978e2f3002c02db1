// Multi-rank building blocks without MPI (docs/mpi.md): partitions, per-rank generation of a subset of rows, and
// communication plans. Every rank's view is built in this one process, so the plans can be checked against each
// other: every needed remote voltage is received exactly once, no rank receives a voltage it does not use, and
// what a rank sends is exactly what its neighbour expects, in the neighbour's order.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <vector>

#include "core/network/gap_network.hpp"
#include "core/network/generate_network.hpp"
#include "core/network/random_network.hpp"
#include "core/parallel/comm_plan.hpp"
#include "core/parallel/comm_plan_parallel.hpp"
#include "core/parallel/partition.hpp"
#include "tests/backend_types.hpp"

namespace {

using kbrain::CommPlan;
using kbrain::GapNetwork;
using kbrain::Partition;
using kbrain::RandomNetworkSpec;

RandomNetworkSpec spec(RandomNetworkSpec::Kind kind, std::int64_t cells, double density, bool symmetric = false,
                       bool exact = false, bool g_range = false) {
  RandomNetworkSpec s;
  s.kind = kind;
  s.cells = cells;
  s.density = density;
  s.symmetric = symmetric;
  s.exact = exact;
  s.sigma = 1.0;
  s.scale = 1.5;
  s.seed = 77;
  if (g_range) s.g_low = 0.01, s.g_high = 0.05;
  return s;
}

template <class Exec>
GapNetwork generate_host(const RandomNetworkSpec& s) {
  return kbrain::generate_network<Exec, double>(kbrain::make_random_network_tables(s)).to_host();
}

// Builds every rank's plan, exchanges requests in-process, and checks every invariant.
std::vector<CommPlan> check_plans(const GapNetwork& net, const Partition& part) {
  std::vector<CommPlan> plans;
  std::int64_t covered = 0;
  for (int r = 0; r < part.ranks; ++r) {
    const auto owned = part.owned_cells(r);
    covered += static_cast<std::int64_t>(owned.size());
    plans.push_back(kbrain::build_comm_plan(r, part, owned, kbrain::extract_rows(net, owned)));
  }
  CHECK(covered == net.cells);
  for (int r = 0; r < part.ranks; ++r) {
    std::vector<std::pair<int, std::vector<std::int64_t>>> req;
    for (int q = 0; q < part.ranks; ++q)
      if (q != r) req.emplace_back(q, plans[q].requests_to(r));
    kbrain::set_send_side(plans[r], req);
  }
  std::int64_t sent_total = 0, recv_total = 0;
  for (int r = 0; r < part.ranks; ++r) {
    const CommPlan& p = plans[r];
    CAPTURE(r);
    REQUIRE(static_cast<std::int64_t>(p.global.size()) == p.owned + p.halo);
    // rows map back to the global rows, junction order unchanged; interior rows read no halo entry
    std::set<std::int64_t> used_remote;
    for (std::int64_t l = 0; l < p.owned; ++l) {
      const std::int64_t g = p.global[l];
      CHECK(part.owner[g] == r);
      REQUIRE(p.offsets[l + 1] - p.offsets[l] == net.offsets[g + 1] - net.offsets[g]);
      bool reads_halo = false;
      for (std::int64_t k = 0; k < p.offsets[l + 1] - p.offsets[l]; ++k) {
        const std::int32_t src = p.sources[p.offsets[l] + k];
        REQUIRE(p.global[src] == net.sources[net.offsets[g] + k]);
        if (!net.conductance.empty()) CHECK(p.conductance[p.offsets[l] + k] == net.conductance[net.offsets[g] + k]);
        if (src >= p.owned) {
          reads_halo = true;
          used_remote.insert(p.global[src]);
        }
      }
      CHECK(reads_halo == (l >= p.interior));
    }
    // halo: each needed remote voltage exactly once, nothing unused, grouped by owner
    std::set<std::int64_t> halo(p.global.begin() + p.owned, p.global.end());
    CHECK(static_cast<std::int64_t>(halo.size()) == p.halo);  // no duplicates
    CHECK(halo == used_remote);                                // no unused voltage, none missing
    for (std::size_t k = 0; k < p.recv_ranks.size(); ++k) {
      CHECK(p.recv_ranks[k] != r);
      CHECK(p.recv_counts[k] > 0);
      for (std::int64_t h = 0; h < p.recv_counts[k]; ++h)
        CHECK(part.owner[p.global[p.owned + p.recv_displs[k] + h]] == p.recv_ranks[k]);
    }
    recv_total += p.halo;
    // send side: what r sends q is exactly q's halo block from r, in q's order
    for (std::size_t k = 0; k < p.send_ranks.size(); ++k) {
      const int q = p.send_ranks[k];
      const auto want = plans[q].requests_to(r);
      REQUIRE(static_cast<std::int64_t>(want.size()) == p.send_counts[k]);
      for (std::int64_t j = 0; j < p.send_counts[k]; ++j) CHECK(p.global[p.send_local[p.send_displs[k] + j]] == want[j]);
      sent_total += p.send_counts[k];
    }
  }
  CHECK(sent_total == recv_total);
  return plans;
}

}  // namespace

TEST_SUITE("parallel") {
  TEST_CASE("blocks: contiguous, sizes differ by at most one (uneven N)") {
    const auto p = kbrain::partition_blocks(10, 3);
    CHECK(p.counts() == std::vector<std::int64_t>{4, 3, 3});
    CHECK(p.owned_cells(1) == std::vector<std::int64_t>{4, 5, 6});
    CHECK(kbrain::partition_blocks(7, 1).counts() == std::vector<std::int64_t>{7});
    CHECK_THROWS_AS(kbrain::partition_blocks(2, 3), std::invalid_argument);
    CHECK_THROWS_AS(kbrain::partition_blocks(5, 0), std::invalid_argument);
  }

  TEST_CASE("tiles: a pr x pc grid of rectangles covering the mesh") {
    const auto p = kbrain::partition_tiles2d(6, 8, 4);
    CHECK(p.grid == std::array<int, 3>{2, 2, 1});
    CHECK(p.counts() == std::vector<std::int64_t>{12, 12, 12, 12});
    CHECK(p.owner[0] == 0);
    CHECK(p.owner[4] == 1);       // row 0, col 4
    CHECK(p.owner[3 * 8] == 2);   // row 3, col 0
    CHECK(p.owner[47] == 3);
    const auto q = kbrain::partition_tiles2d(5, 7, 3);  // uneven: 3 tiles
    std::int64_t total = 0;
    for (auto c : q.counts()) total += c;
    CHECK(total == 35);
    // each tile is a rectangle: its cells span exactly (rows x cols) of their bounding box
    for (int r = 0; r < q.ranks; ++r) {
      const auto cells = q.owned_cells(r);
      std::int64_t r0 = 99, r1 = -1, c0 = 99, c1 = -1;
      for (auto i : cells) r0 = std::min(r0, i / 7), r1 = std::max(r1, i / 7), c0 = std::min(c0, i % 7), c1 = std::max(c1, i % 7);
      CHECK((r1 - r0 + 1) * (c1 - c0 + 1) == static_cast<std::int64_t>(cells.size()));
    }
    CHECK_THROWS_AS(kbrain::partition_tiles2d(1, 1, 2), std::invalid_argument);
  }

  TEST_CASE("bricks: a px x py x pz grid of boxes of the gaussian lattice") {
    const auto p = kbrain::partition_bricks3d(1000, 10, 8);
    CHECK(p.kind == Partition::Kind::Bricks3d);
    CHECK(p.grid == std::array<int, 3>{2, 2, 2});
    CHECK(p.counts() == std::vector<std::int64_t>(8, 125));
    CHECK(p.owner[0] == 0);
    CHECK(p.owner[999] == 7);
    CHECK(p.owner[5] == 1);    // z = 5
    CHECK(p.owner[50] == 2);   // y = 5
    CHECK(p.owner[500] == 4);  // x = 5
    const auto q = kbrain::partition_bricks3d(700, kbrain::gaussian_lattice_side(700), 3);  // partial cube, uneven
    std::int64_t total = 0;
    for (auto c : q.counts()) {
      CHECK(c > 0);
      total += c;
    }
    CHECK(total == 700);
    // a partial last slab: the x cut balances cells (within one slab of 81), not slabs (405 + 295 before)
    const auto two = kbrain::partition_bricks3d(700, 9, 2);
    REQUIRE(two.counts().size() == 2);
    CHECK(std::llabs(two.counts()[0] - two.counts()[1]) <= 81);
    CHECK(two.counts()[0] + two.counts()[1] == 700);
  }

  TEST_CASE("partition names") {
    CHECK(kbrain::parse_partition_choice("bricks") == kbrain::PartitionChoice::Bricks3d);
    CHECK(kbrain::parse_partition_choice("auto") == kbrain::PartitionChoice::Auto);
    CHECK_THROWS_AS(kbrain::parse_partition_choice("slabs"), std::invalid_argument);
  }

  TEST_CASE_TEMPLATE_DEFINE("per-rank generation: the rows of any cell subset equal the full network's rows", Backend,
                            parallel_rows) {
    using Exec = typename Backend::execution_space;
    using K = RandomNetworkSpec::Kind;
    const std::vector<RandomNetworkSpec> specs = {
        spec(K::Uniform, 300, 12), spec(K::Uniform, 300, 12, false, true, true), spec(K::Uniform, 300, 12, true),
        spec(K::Gaussian3d, 500, 20, false, false, true), spec(K::Gaussian3d, 500, 20, true)};
    for (const auto& s : specs) {
      CAPTURE(s.kind_name());
      CAPTURE(s.symmetric);
      CAPTURE(s.exact);
      const auto tables = kbrain::make_random_network_tables(s);
      const GapNetwork full = kbrain::generate_network<Exec, double>(tables).to_host();
      for (int ranks : {2, 3}) {
        const auto part = s.kind == K::Gaussian3d ? kbrain::partition_bricks3d(s.cells, tables.side, ranks)
                                                  : kbrain::partition_blocks(s.cells, ranks);
        for (int r = 0; r < ranks; ++r) {
          const auto owned = part.owned_cells(r);
          const GapNetwork rows = kbrain::generate_network_rows<Exec, double>(tables, owned).to_host();
          const GapNetwork want = kbrain::extract_rows(full, owned);
          CHECK(rows.offsets == want.offsets);
          CHECK(rows.sources == want.sources);
          CHECK(rows.conductance == want.conductance);
          CHECK(rows.constant_conductance == want.constant_conductance);
        }
      }
      // an arbitrary, unsorted subset
      const std::vector<std::int64_t> odd = {299, 3, 150, 0, 42};
      const GapNetwork rows = kbrain::generate_network_rows<Exec, double>(tables, odd).to_host();
      CHECK(rows.sources == kbrain::extract_rows(full, odd).sources);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(parallel_rows, KBRAIN_TEST_BACKENDS);

  TEST_CASE("mesh2d_rows equals the rows of make_mesh2d") {
    const GapNetwork full = kbrain::make_mesh2d(5, 7, 0.04);
    const std::vector<std::int64_t> t = {0, 6, 7, 17, 34, 28};
    const GapNetwork rows = kbrain::mesh2d_rows(5, 7, 0.04, t);
    const GapNetwork want = kbrain::extract_rows(full, t);
    CHECK(rows.offsets == want.offsets);
    CHECK(rows.sources == want.sources);
  }

  TEST_CASE("comm plans: each remote voltage received exactly once, none unused, sends match receives") {
    const GapNetwork mesh = kbrain::make_mesh2d(9, 11, 0.04);
    const GapNetwork uni = generate_host<Kokkos::DefaultHostExecutionSpace>(
        spec(RandomNetworkSpec::Kind::Uniform, 257, 9, false, false, true));
    const auto gs = spec(RandomNetworkSpec::Kind::Gaussian3d, 343, 15);
    const GapNetwork gauss = generate_host<Kokkos::DefaultHostExecutionSpace>(gs);
    for (int ranks = 1; ranks <= 4; ++ranks) {
      CAPTURE(ranks);
      check_plans(mesh, kbrain::partition_blocks(mesh.cells, ranks));
      check_plans(mesh, kbrain::partition_tiles2d(9, 11, ranks));
      check_plans(uni, kbrain::partition_blocks(uni.cells, ranks));
      check_plans(gauss, kbrain::partition_blocks(gauss.cells, ranks));
      check_plans(gauss, kbrain::partition_bricks3d(gauss.cells, 7, ranks));
    }
    // one rank: no halo, every cell interior
    const auto one = check_plans(mesh, kbrain::partition_blocks(mesh.cells, 1));
    CHECK(one[0].halo == 0);
    CHECK(one[0].interior == mesh.cells);
    // mesh in 2 row blocks: the halo of rank 0 is exactly the first row of rank 1
    const GapNetwork mesh8 = kbrain::make_mesh2d(8, 11, 0.04);  // 2 blocks of 4 rows
    const auto two = check_plans(mesh8, kbrain::partition_blocks(mesh8.cells, 2));
    CHECK(two[0].halo == 11);
    CHECK(two[0].recv_ranks == std::vector<int>{1});
  }

  TEST_CASE_TEMPLATE_DEFINE("the plan built in parallel on the backend equals the host reference plan", Backend,
                            parallel_plan) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    const GapNetwork mesh = kbrain::make_mesh2d(9, 11, 0.04);
    const GapNetwork uni = generate_host<Kokkos::DefaultHostExecutionSpace>(
        spec(RandomNetworkSpec::Kind::Uniform, 257, 9, false, false, true));  // per-junction conductances
    const GapNetwork gauss = generate_host<Kokkos::DefaultHostExecutionSpace>(
        spec(RandomNetworkSpec::Kind::Gaussian3d, 343, 15));
    const GapNetwork a2a = kbrain::make_all_to_all(10, 0.04);
    struct Case {
      const GapNetwork* net;
      Partition part;
    };
    for (int ranks = 1; ranks <= 4; ++ranks) {
      CAPTURE(ranks);
      const std::vector<Case> cases = {{&mesh, kbrain::partition_tiles2d(9, 11, ranks)},
                                       {&mesh, kbrain::partition_blocks(mesh.cells, ranks)},
                                       {&uni, kbrain::partition_blocks(uni.cells, ranks)},
                                       {&gauss, kbrain::partition_bricks3d(gauss.cells, 7, ranks)},
                                       {&gauss, kbrain::partition_blocks(gauss.cells, ranks)},
                                       {&a2a, kbrain::partition_blocks(a2a.cells, ranks)}};
      for (std::size_t c = 0; c < cases.size(); ++c) {
        CAPTURE(c);
        const Partition& part = cases[c].part;
        for (int r = 0; r < ranks; ++r) {
          CAPTURE(r);
          const auto owned = part.owned_cells(r);
          const GapNetwork rows = kbrain::extract_rows(*cases[c].net, owned);
          const CommPlan want = kbrain::build_comm_plan(r, part, owned, rows);
          const auto got = kbrain::build_comm_plan_parallel<Exec, Mem>(r, part, owned, kbrain::GeneratedNetwork<double, Mem>::from_host(rows));
          CHECK(got.plan.rank == want.rank);
          CHECK(got.plan.owned == want.owned);
          CHECK(got.plan.interior == want.interior);
          CHECK(got.plan.halo == want.halo);
          CHECK(got.plan.global == want.global);
          CHECK(got.plan.recv_ranks == want.recv_ranks);
          CHECK(got.plan.recv_counts == want.recv_counts);
          CHECK(got.plan.recv_displs == want.recv_displs);
          CHECK(got.plan.constant_conductance == want.constant_conductance);
          const GapNetwork local = got.rows.to_host();
          CHECK(local.offsets == want.offsets);
          CHECK(local.sources == want.sources);
          CHECK(local.conductance == want.conductance);
        }
      }
    }
    // inconsistent input is refused, as by the host builder
    const auto part = kbrain::partition_blocks(mesh.cells, 2);
    const auto owned = part.owned_cells(0);
    auto build = [&](int rank, const GapNetwork& rows) {
      return kbrain::build_comm_plan_parallel<Exec, Mem>(rank, part, owned, kbrain::GeneratedNetwork<double, Mem>::from_host(rows));
    };
    CHECK_THROWS_AS(build(1, kbrain::extract_rows(mesh, owned)), std::invalid_argument);  // rank 1 owns none of them
    GapNetwork bad = kbrain::extract_rows(mesh, owned);
    bad.sources[3] = static_cast<std::int32_t>(mesh.cells);  // out of range
    CHECK_THROWS_AS(build(0, bad), std::invalid_argument);
  }
  TEST_CASE_TEMPLATE_APPLY(parallel_plan, KBRAIN_TEST_BACKENDS);

  TEST_CASE("comm plans refuse inconsistent input") {
    const GapNetwork mesh = kbrain::make_mesh2d(4, 4, 0.04);
    const auto part = kbrain::partition_blocks(16, 2);
    const auto owned = part.owned_cells(0);
    CHECK_THROWS_AS(kbrain::build_comm_plan(1, part, owned, kbrain::extract_rows(mesh, owned)), std::invalid_argument);
    auto plan = kbrain::build_comm_plan(0, part, owned, kbrain::extract_rows(mesh, owned));
    CHECK_THROWS_AS(kbrain::set_send_side(plan, {{1, {12}}}), std::invalid_argument);  // not owned by rank 0
  }
}
