// Brick-tiled gap kernel (models/olive/gap/io_gap_tiled.hpp) on every backend: its two junction lists are exactly the CSR
// split by the cube test, and a network run with it agrees with the fused kernel, for several cuts (all junctions
// in the cube, some outside, none inside), partial lattices and per-junction conductances.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>
#include <string>

#include "core/network/generate_network.hpp"
#include "core/network/random_network.hpp"
#include "models/olive/gap/io_gap_tiled.hpp"
#include "models/olive/drivers/io_simulation.hpp"
#include "tests/backend_types.hpp"
#include "tests/io_test_support.hpp"

namespace {

using namespace kbrain;

RandomNetworkSpec lattice_spec(std::int64_t cells, bool g_range) {
  RandomNetworkSpec spec;
  spec.kind = RandomNetworkSpec::Kind::Gaussian3d;
  spec.cells = cells;
  spec.density = 40;
  spec.sigma = 1.0;
  spec.scale = 1.6;  // reach of a few sites: a 3^3 brick with halo 2 leaves a tail outside its cube
  spec.seed = 11;
  if (g_range) {
    spec.g_low = 0.02;
    spec.g_high = 0.06;
  }
  return spec;
}

template <class Backend>
olive::DeviceGapNetwork<double, typename Backend::memory_space> device_network(const RandomNetworkSpec& spec) {
  using Exec = typename Backend::execution_space;
  const auto net = generate_network<Exec, double>(make_random_network_tables(spec));
  REQUIRE(net.lattice_side > 0);
  return olive::DeviceGapNetwork<double, typename Backend::memory_space>::from_views(
      net.cells, net.offsets, net.sources, net.g, net.g_const, net.lattice_side);
}

template <class V>
auto host(const V& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

struct Cut {
  int brick, halo;
};

// Every variable of every cell after `steps` steps with a pulse; tiled: the tiled kernel with `cut`, else fused.
template <class Backend>
std::vector<std::vector<double>> run(const RandomNetworkSpec& spec, bool tiled, Cut cut, int steps = 300) {
  std::vector<double> g_cal(spec.cells);
  for (std::int64_t i = 0; i < spec.cells; ++i) g_cal[i] = 0.6 + 0.2 * double(i % 13) / 13.0;
  const auto network = device_network<Backend>(spec);
  olive::GapStrategy strategy = olive::choose_gap_strategy(
      olive::IoSimulation<Backend, double>::choice_input(network),
      tiled ? olive::GapKernelRequest::Tiled : olive::GapKernelRequest::Fused);
  strategy.tile_brick = cut.brick;
  strategy.tile_halo = cut.halo;
  olive::IoSimulation<Backend, double> sim(olive::IoParameters{}, network, g_cal, strategy);
  CHECK((sim.strategy().kernel == olive::GapKernel::Tiled) == tiled);
  if (tiled)
    CHECK(sim.strategy_name() == "tiled " + std::to_string(cut.brick) + "^3+" + std::to_string(cut.halo));
  return test::run_pulse_and_read_state(sim, steps);
}

using test::max_abs_diff;

}  // namespace

TEST_SUITE("io_tiled") {
  TEST_CASE_TEMPLATE_DEFINE("the in-cube and out-of-cube lists are the CSR, split by the cube test", Backend,
                            io_tiled_lists) {
    using Exec = typename Backend::execution_space;
    for (const std::int64_t cells : {std::int64_t(4096), std::int64_t(3000)}) {  // full 16^3 cube; partial 15^3
      for (const bool g_range : {false, true}) {
        CAPTURE(cells);
        CAPTURE(g_range);
        const auto spec = lattice_spec(cells, g_range);
        const auto d = device_network<Backend>(spec);
        olive::BrickTiling t;
        t.cells = cells;
        t.side = d.lattice_side;
        t.brick = 3;
        t.halo = 2;
        const auto tl = olive::build_tiled_gap<Exec, double>(d.csr, t);
        const auto off = host(d.csr.offsets);
        const auto src = host(d.csr.sources);
        const auto in_off = host(tl.in_offsets), out_off = host(tl.out_offsets);
        const auto slots = host(tl.slots);
        const auto out_src = host(tl.out_sources);
        REQUIRE(tl.in_junctions() + tl.out_junctions() == static_cast<std::int64_t>(src.extent(0)));
        CHECK(tl.in_junctions() > 0);
        CHECK(tl.out_junctions() > 0);  // the cut leaves a tail outside the cube
        std::int64_t bad = 0;
        const int r = t.region();
        for (std::int64_t i = 0; i < cells; ++i) {
          const auto c = olive::tiled::site_of(i, t.side);
          std::int64_t a = in_off(i), b = out_off(i);
          for (std::int64_t k = off(i); k < off(i + 1); ++k) {
            const auto s = olive::tiled::site_of(src(k), t.side);
            const int rx = s.x - (c.x / 3 * 3 - 2), ry = s.y - (c.y / 3 * 3 - 2), rz = s.z - (c.z / 3 * 3 - 2);
            const bool inside = rx >= 0 && ry >= 0 && rz >= 0 && rx < r && ry < r && rz < r;
            if (inside) bad += slots(a++) != (rx * r + ry) * r + rz;
            else bad += out_src(b++) != src(k);
          }
          bad += a != in_off(i + 1) || b != out_off(i + 1);
        }
        CHECK(bad == 0);
        if (g_range) {
          const auto g = host(d.csr.g), g_in = host(tl.g_in), g_out = host(tl.g_out);
          std::vector<double> merged(g_in.data(), g_in.data() + g_in.extent(0));
          merged.insert(merged.end(), g_out.data(), g_out.data() + g_out.extent(0));
          std::vector<double> all(g.data(), g.data() + g.extent(0));
          std::sort(merged.begin(), merged.end());
          std::sort(all.begin(), all.end());
          CHECK(merged == all);
        }
      }
    }
  }
  TEST_CASE_TEMPLATE_APPLY(io_tiled_lists, KBRAIN_TEST_BACKENDS);


  TEST_CASE_TEMPLATE_DEFINE("tiled gap currents agree with the fused kernel", Backend, io_tiled_vs_fused) {
    for (const std::int64_t cells : {std::int64_t(4096), std::int64_t(3000)}) {
      for (const bool g_range : {false, true}) {
        CAPTURE(cells);
        CAPTURE(g_range);
        const auto spec = lattice_spec(cells, g_range);
        const auto fused = run<Backend>(spec, false, {0, 0});
        CHECK(fused[olive::V_DEND][0] != fused[olive::V_DEND][1]);  // coupled cells with different g_CaL differ
        // a tail outside; all outside; ~all inside
        for (const Cut cut : {Cut{3, 2}, Cut{1, 0}, Cut{2, 6}}) {
          CAPTURE(cut.brick);
          CAPTURE(cut.halo);
          CHECK(max_abs_diff(fused, run<Backend>(spec, true, cut)) < 1e-9);
        }
      }
    }
  }
  TEST_CASE_TEMPLATE_APPLY(io_tiled_vs_fused, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("per cell, tiled gap currents equal the warp-per-cell CSR kernel's", Backend,
                            io_tiled_currents) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    const auto spec = lattice_spec(3000, true);
    const auto d = device_network<Backend>(spec);
    olive::StateView<double, Mem> state("state", olive::NUM_VARS, spec.cells);
    auto hs = Kokkos::create_mirror_view(state);
    for (std::int64_t i = 0; i < spec.cells; ++i) hs(olive::V_DEND, i) = -70.0 + double((i * 7919) % 401) * 0.1;
    Kokkos::deep_copy(state, hs);
    const int cells = static_cast<int>(spec.cells);
    Kokkos::View<double*, Mem> by_row("by_row", cells);
    olive::compute_split_gap_currents<Exec, double>(d.csr, state, by_row, cells, Backend::is_gpu);
    const auto want = host(by_row);
    for (const Cut cut : {Cut{3, 2}, Cut{1, 0}, Cut{2, 6}}) {
      CAPTURE(cut.brick);
      CAPTURE(cut.halo);
      olive::BrickTiling t;
      t.cells = spec.cells;
      t.side = d.lattice_side;
      t.brick = cut.brick;
      t.halo = cut.halo;
      const auto tl = olive::build_tiled_gap<Exec, double>(d.csr, t);
      Kokkos::View<double*, Mem> tiled_out("tiled", cells);
      // The benchmarks' TiledKernel variants: {table, branch per junction}: 00, 10, 01, 11, then 4 teams.
      std::vector<std::vector<double>> by_choice;
      const auto check_variant = [&](auto kernel, const char* name) {
        using Kernel = decltype(kernel);
        CAPTURE(name);
        Kokkos::deep_copy(tiled_out, -1e300);
        olive::compute_tiled_gap_currents<Exec, double, Kernel>(tl, state, tiled_out, Backend::is_gpu);
        const auto got = host(tiled_out);
        by_choice.emplace_back(got.data(), got.data() + cells);
        std::int64_t bad = 0, first = -1;
        for (int i = 0; i < cells; ++i)
          if (!(std::fabs(got(i) - want(i)) <= 1e-12 * (1 + std::fabs(want(i))))) {
            if (first < 0) first = i;
            ++bad;
          }
        CAPTURE(first);
        CAPTURE(first >= 0 ? got(first) : 0.0);
        CAPTURE(first >= 0 ? want(first) : 0.0);
        CHECK(bad == 0);
      };
      check_variant(olive::TiledKernel<olive::GapKernelTableFreeMath, false, 5>{}, "table-free, branch-free");
      check_variant(olive::TiledKernel<olive::GapKernelMath, false, 5>{}, "table, branch-free");
      check_variant(olive::TiledKernel<olive::GapKernelTableFreeMath, true, 5>{}, "table-free, branchy");
      check_variant(olive::TiledKernel<olive::GapKernelMath, true, 5>{}, "table, branchy");
      check_variant(olive::TiledKernel<olive::GapKernelTableFreeMath, false, 4>{}, "table-free, branch-free, 4 teams");
      // Each vector lane adds its junctions in the same order with or without a branch per junction, and a
      // junction past the row's end adds exactly 0: the same sums, bit for bit, on every backend. On a GPU the two
      // exponentials round differently somewhere (on the host both are libm's).
      CHECK(by_choice[0] == by_choice[2]);
      CHECK(by_choice[1] == by_choice[3]);
      CHECK(by_choice[0] == by_choice[4]);
      if (Backend::is_gpu) CHECK(by_choice[0] != by_choice[1]);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(io_tiled_currents, KBRAIN_TEST_BACKENDS);

  TEST_CASE("cuts that cannot work are refused with a message") {
    olive::BrickTiling t;
    t.cells = 1000;
    t.side = 10;
    t.brick = 20;
    t.halo = 11;  // 42^3 sites: more than 16-bit slots address
    CHECK_THROWS_WITH_AS(t.validate(), doctest::Contains("65535"), std::invalid_argument);
    t.brick = 0;
    CHECK_THROWS_AS(t.validate(), std::invalid_argument);
    t.brick = 4;
    t.halo = 1;
    t.cells = 1001;  // more than 10^3
    CHECK_THROWS_AS(t.validate(), std::invalid_argument);
    const auto f = olive::default_tiling<float>(1000, 10, 40 * 1024);
    CHECK(f.region() == 21);
    CHECK(f.region_sites() * 4 <= 40 * 1024);
    const auto d = olive::default_tiling<double>(1000, 10, 40 * 1024);
    CHECK(d.region() == 17);
  }
}
