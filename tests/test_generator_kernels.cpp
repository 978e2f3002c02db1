// Random network generators, their kernels' paths: the host single-pass sweep, sort_rows, mode exact by teams; a
// cell's list independent of the others; invalid parameters and config keys refused; the memory planner.
#include <doctest/doctest.h>

#include "tests/generator_test_support.hpp"

using namespace kbrain::generator_test;
using kbrain::GapNetwork;
using kbrain::RandomNetworkSpec;
using Kind = RandomNetworkSpec::Kind;

TEST_SUITE("generators") {
  TEST_CASE_TEMPLATE_DEFINE("host single-pass sweep equals the two-pass (count, scan, fill) sweep", Backend,
                            generators_single_pass) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    auto specs = all_specs();
    specs.push_back(with_range(uniform_spec(3001, 300, false, false)));  // rows longer than the first buffer: regrow
    for (const auto& spec : specs) {
      if (spec.exact) continue;  // mode exact has no sweep
      CAPTURE(name_of(spec));
      const auto t = kbrain::netgen::upload_tables<Mem>(kbrain::make_random_network_tables(spec));
      // all rows, and a scattered subset of rows (what an MPI rank generates)
      Kokkos::View<std::int64_t*, Mem> subset("subset", 3);
      auto hs = Kokkos::create_mirror_view(subset);
      hs(0) = spec.cells - 1;
      hs(1) = 7;
      hs(2) = spec.cells / 2;
      Kokkos::deep_copy(subset, hs);
      for (const bool rows_subset : {false, true}) {
        const Kokkos::View<const std::int64_t*, Mem> targets = rows_subset ? subset : Kokkos::View<std::int64_t*, Mem>();
        const auto one = kbrain::netgen::sweep<Exec, double, Mem>(t, targets, false).to_host();
        const auto two = kbrain::netgen::sweep<Exec, double, Mem>(t, targets, true).to_host();
        CHECK(one.offsets == two.offsets);
        CHECK(one.sources == two.sources);
        CHECK(one.conductance == two.conductance);
        CHECK(one.junctions() > 0);
      }
    }
  }
  TEST_CASE_TEMPLATE_APPLY(generators_single_pass, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("sort_rows: each row ascending with its values, in team scratch and past its capacity",
                            Backend, generators_sort_rows) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    // 200 rows of 0 .. 297 distinct keys in a scrambled order; values tied to their keys.
    std::vector<std::int64_t> offsets = {0};
    std::vector<std::int32_t> keys;
    for (int r = 0; r < 200; ++r) {
      const int n = (r * 37) % 298;
      for (int i = 0; i < n; ++i) keys.push_back(static_cast<std::int32_t>((std::int64_t(i) * 7919 + r * 13) % 100003));
      offsets.push_back(static_cast<std::int64_t>(keys.size()));
    }
    for (const int capacity : {64, kbrain::netgen::kSortRowsCapacity}) {  // 64: rows longer than it are heap-sorted
      CAPTURE(capacity);
      Kokkos::View<std::int64_t*, Mem> d_off("off", offsets.size());
      Kokkos::View<std::int32_t*, Mem> d_keys("keys", keys.size());
      Kokkos::View<double*, Mem> d_vals("vals", keys.size());
      auto h_off = Kokkos::create_mirror_view(d_off);
      auto h_keys = Kokkos::create_mirror_view(d_keys);
      auto h_vals = Kokkos::create_mirror_view(d_vals);
      for (std::size_t i = 0; i < offsets.size(); ++i) h_off(i) = offsets[i];
      for (std::size_t i = 0; i < keys.size(); ++i) h_keys(i) = keys[i], h_vals(i) = 0.5 * keys[i] + 1.0;
      Kokkos::deep_copy(d_off, h_off);
      Kokkos::deep_copy(d_keys, h_keys);
      Kokkos::deep_copy(d_vals, h_vals);
      kbrain::netgen::sort_rows<Exec, double, Mem>(Kokkos::View<const std::int64_t*, Mem>(d_off), d_keys, d_vals, true,
                                                   capacity);
      Kokkos::deep_copy(h_keys, d_keys);
      Kokkos::deep_copy(h_vals, d_vals);
      int wrong_rows = 0, wrong_vals = 0;
      for (std::size_t r = 0; r + 1 < offsets.size(); ++r) {
        std::vector<std::int32_t> want(keys.begin() + offsets[r], keys.begin() + offsets[r + 1]);
        std::sort(want.begin(), want.end());
        const std::vector<std::int32_t> got(h_keys.data() + offsets[r], h_keys.data() + offsets[r + 1]);
        wrong_rows += got != want;
        for (std::int64_t i = offsets[r]; i < offsets[r + 1]; ++i) wrong_vals += h_vals(i) != 0.5 * h_keys(i) + 1.0;
      }
      CHECK(keys.size() > 20000);
      CHECK(wrong_rows == 0);
      CHECK(wrong_vals == 0);

      // With lengths (the symmetric lower parts): only the first half of each row is sorted, the rest stays.
      Kokkos::View<std::int64_t*, Mem> d_len("len", offsets.size() - 1);
      auto h_len = Kokkos::create_mirror_view(d_len);
      for (std::size_t r = 0; r + 1 < offsets.size(); ++r) h_len(r) = (offsets[r + 1] - offsets[r]) / 2;
      Kokkos::deep_copy(d_len, h_len);
      for (std::size_t i = 0; i < keys.size(); ++i) h_keys(i) = keys[i];
      Kokkos::deep_copy(d_keys, h_keys);
      kbrain::netgen::sort_rows<Exec, double, Mem>(Kokkos::View<const std::int64_t*, Mem>(d_off), d_keys, d_vals, false,
                                                   capacity, Kokkos::View<const std::int64_t*, Mem>(d_len));
      Kokkos::deep_copy(h_keys, d_keys);
      int wrong_halves = 0;
      for (std::size_t r = 0; r + 1 < offsets.size(); ++r) {
        const std::int64_t b = offsets[r], m = b + h_len(r), e = offsets[r + 1];
        std::vector<std::int32_t> want(keys.begin() + b, keys.begin() + m);
        std::sort(want.begin(), want.end());
        want.insert(want.end(), keys.begin() + m, keys.begin() + e);
        wrong_halves += std::vector<std::int32_t>(h_keys.data() + b, h_keys.data() + e) != want;
      }
      CHECK(wrong_halves == 0);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(generators_sort_rows, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("mode exact: draws, sort_rows and the rest equal the one-pass fill", Backend,
                            generators_exact_by_teams) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    for (const auto& spec : {uniform_spec(2000, 25, true, false), with_range(uniform_spec(500, 499, true, false))}) {
      CAPTURE(name_of(spec));
      const auto tables = kbrain::make_random_network_tables(spec);
      const auto t = kbrain::netgen::upload_tables<Mem>(tables);
      const std::int64_t rows = spec.cells, k = tables.exact_count;
      Kokkos::View<std::int64_t*, Mem> off("off", rows + 1);
      Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, rows + 1), kbrain::netgen::EqualSegments<Mem>{off, k});
      std::vector<std::vector<std::int32_t>> src;
      std::vector<std::vector<double>> g;
      for (const bool by_teams : {false, true}) {
        Kokkos::View<std::int32_t*, Mem> s("s", rows * k);
        Kokkos::View<double*, Mem> gv("g", t.g_range ? rows * k : 0);
        kbrain::netgen::exact_fill<Exec, double, Mem>(t, off, s, gv, {}, by_teams);
        const auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s);
        const auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gv);
        src.emplace_back(hs.data(), hs.data() + hs.extent(0));
        g.emplace_back(hg.data(), hg.data() + hg.extent(0));
      }
      CHECK(k > 0);
      CHECK(src[0] == src[1]);
      CHECK(g[0] == g[1]);
      CHECK(std::is_sorted(src[1].begin(), src[1].begin() + k));
    }
  }
  TEST_CASE_TEMPLATE_APPLY(generators_exact_by_teams, KBRAIN_TEST_BACKENDS);

  TEST_CASE("a cell's list depends only on (seed, cell, N, parameters): one cell generated alone matches") {
    using Mem = Kokkos::HostSpace;
    for (const auto& spec : {with_range(uniform_spec(3001, 12, false, false)), gaussian_spec(4100, 30, 1.0, 2.0,
                                                                                             false)}) {
      CAPTURE(name_of(spec));
      const auto tables = kbrain::make_random_network_tables(spec);
      const GapNetwork full = generate<kbrain::SerialBackend>(spec);
      const auto t = kbrain::netgen::upload_tables<Mem>(tables);
      for (std::int64_t cell : {std::int64_t{0}, std::int64_t{1234}, spec.cells - 1}) {
        // What a rank owning only `cell` would run: the count and fill functors for that one cell.
        Kokkos::View<std::int64_t*, Mem> offsets("offsets", spec.cells + 1);
        kbrain::netgen::SweepFunctor<Mem, double, false>{t, offsets, {}, {}}(cell);
        const std::int64_t n = offsets(cell);
        offsets(cell) = 0;
        Kokkos::View<std::int32_t*, Mem> src("src", n);
        Kokkos::View<double*, Mem> g("g", t.g_range ? n : 0);
        kbrain::netgen::SweepFunctor<Mem, double, true>{t, offsets, src, g}(cell);
        CHECK(std::vector<std::int32_t>(src.data(), src.data() + n) == sources_of(full, cell));
      }
      // The topology does not depend on the conductance law.
      RandomNetworkSpec constant = spec;
      constant.g_low = constant.g_high = 0.02;
      CHECK(generate<kbrain::SerialBackend>(constant).sources == full.sources);
    }
  }

  TEST_CASE("invalid generator parameters are refused with a message naming them") {
    CHECK_THROWS_WITH_AS(kbrain::make_random_network_tables(uniform_spec(100, 100, false, false)),
                         doctest::Contains("exceeds the 99 other cells"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(kbrain::make_random_network_tables(uniform_spec(100, 10, true, true)),
                         doctest::Contains("mode exact cannot be symmetric"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(kbrain::make_random_network_tables(gaussian_spec(1000, 500, 1.0, 1.0, false)),
                         doctest::Contains("largest mean density"), std::invalid_argument);
  }

  TEST_CASE("config: uniform / gaussian3d keys are validated strictly") {
    const std::string head = "name = \"g\"\n[simulation]\nsteps = 10\n[network]\n";
    const auto cfg = kbrain::parse_model_experiment(head + "type = \"gaussian3d\"\ncells = 4096\ndensity = 100\n"
                                              "sigma = 1\nscale = 5\nsymmetric = true\nseed = 9\n"
                                              "conductance_low = 0.01\nconductance_high = 0.02\n",
                                              "g.toml");
    CHECK(cfg.network.type == "gaussian3d");
    CHECK(cfg.network.density == 100);
    CHECK(cfg.network.symmetric);
    CHECK(cfg.network.conductance_range);
    auto fails = [&](const std::string& body, const std::string& text) {
      CAPTURE(body);
      CHECK_THROWS_WITH_AS(kbrain::parse_model_experiment(head + body, "g.toml"), doctest::Contains(text.c_str()),
                           kbrain::ConfigError);
    };
    fails("type = \"uniform\"\ncells = 100\ndensity = 10\nsigma = 1\n", "g.toml:8: unknown key network.sigma");
    fails("type = \"uniform\"\ncells = 100\ndensity = 10\nmode = \"exact\"\nsymmetric = true\n",
          "network.symmetric = true cannot be combined with network.mode = \"exact\"");
    fails("type = \"uniform\"\ncells = 100\ndensity = 100\n", "network.density = 100 exceeds the 99 other cells");
    fails("type = \"uniform\"\ncells = 100\ndensity = 1.5\nmode = \"exact\"\n", "must be an integer");
    fails("type = \"gaussian3d\"\ncells = 100\ndensity = 10\nconductance = 0.1\nconductance_low = 0.01\n"
          "conductance_high = 0.02\n",
          "network.conductance cannot be combined");
    fails("type = \"gaussian3d\"\ncells = 100\n", "network.density is required");
    fails("type = \"gaussian3d\"\ncells = 100\ndensity = \"10\"\n", "network.density must be a number");
  }

  TEST_CASE("memory planner: refuses an impossible size, naming needed, available and the largest that fits") {
    kbrain::olive::IoMemoryShape shape;
    shape.cells = 4194304;
    shape.junctions = shape.cells * 1000;
    shape.generated = true;
    const std::uint64_t available = std::uint64_t{4} << 30;  // 4 GiB
    const std::uint64_t needed = kbrain::olive::total_bytes(kbrain::olive::plan_io_memory(shape));
    CHECK(needed > 16ull * shape.cells * 1000 / 4);  // at least the 4-byte sources
    CHECK_THROWS_WITH_AS(kbrain::olive::require_memory(shape, available, "cuda (Test GPU)"),
                         doctest::Contains("not enough memory on cuda (Test GPU): 4194304 cells with 4194304000 "
                                           "junctions need"),
                         kbrain::olive::MemoryPlanError);
    CHECK_THROWS_WITH_AS(kbrain::olive::require_memory(shape, available, "x"), doctest::Contains("4.00 GiB is available"),
                         kbrain::olive::MemoryPlanError);
    const std::int64_t largest = kbrain::olive::largest_fitting_cells(shape, available);
    CHECK(largest > 0);
    CHECK(largest < shape.cells);
    auto at = [&](std::int64_t cells) {
      auto s = shape;
      s.cells = cells;
      s.junctions = cells * 1000;
      return kbrain::olive::total_bytes(kbrain::olive::plan_io_memory(s));
    };
    CHECK(at(largest) <= available);
    CHECK(at(largest + 1) > available);
    CHECK_NOTHROW(kbrain::olive::require_memory(shape, needed, "x"));  // exactly enough
  }
}

