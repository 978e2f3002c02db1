// Network generators and readers: mesh2d border semantics, all_to_all, the InfOli dense matrix (transposition,
// malformed input), the kbrain edge list.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/network/gap_network.hpp"
#include "tests/test_helpers.hpp"

#ifndef KBRAIN_TEST_DATA_DIR
#define KBRAIN_TEST_DATA_DIR "tests/data"
#endif

namespace {

namespace fs = std::filesystem;
using kbrain::test::TempDir;
using kbrain::test::contains;
using kbrain::test::runtime_error_of;
using kbrain::GapNetwork;


std::vector<std::int32_t> sources_of(const GapNetwork& net, std::int64_t cell) {
  return {net.sources.begin() + net.offsets[static_cast<std::size_t>(cell)],
          net.sources.begin() + net.offsets[static_cast<std::size_t>(cell) + 1]};
}

std::vector<double> conductances_of(const GapNetwork& net, std::int64_t cell) {
  std::vector<double> g;
  for (std::int64_t k = net.offsets[static_cast<std::size_t>(cell)]; k < net.offsets[static_cast<std::size_t>(cell) + 1];
       ++k) {
    g.push_back(net.g(k));
  }
  return g;
}


}  // namespace

TEST_SUITE_BEGIN("networks");

TEST_CASE("mesh2d 3x4: exact incoming source lists, border cells have fewer neighbours") {
  const GapNetwork net = kbrain::make_mesh2d(3, 4, 0.04);
  CHECK(net.cells == 12);
  CHECK(net.mesh_rows == 3);
  CHECK(net.mesh_cols == 4);
  CHECK(net.is_mesh());
  CHECK(net.conductance.empty());
  CHECK(net.constant_conductance == 0.04);
  REQUIRE(net.offsets.size() == 13);
  CHECK(net.offsets.front() == 0);
  CHECK(net.junctions() == 58);  // 4 corners * 3 + 6 edge cells * 5 + 2 interior * 8

  const std::vector<std::vector<std::int32_t>> expected = {
      {1, 4, 5},          {0, 2, 4, 5, 6},          {1, 3, 5, 6, 7},           {2, 6, 7},
      {0, 1, 5, 8, 9},    {0, 1, 2, 4, 6, 8, 9, 10}, {1, 2, 3, 5, 7, 9, 10, 11}, {2, 3, 6, 10, 11},
      {4, 5, 9},          {4, 5, 6, 8, 10},         {5, 6, 7, 9, 11},          {6, 7, 10}};
  for (std::int64_t cell = 0; cell < 12; ++cell) {
    CAPTURE(cell);
    CHECK(sources_of(net, cell) == expected[static_cast<std::size_t>(cell)]);
  }
  CHECK(net.g(0) == 0.04);
  CHECK(net.g(57) == 0.04);
}

TEST_CASE("mesh2d: corner 3, edge 5, interior 8 neighbours and symmetric junctions") {
  const std::int64_t rows = 5, cols = 7;
  const GapNetwork net = kbrain::make_mesh2d(rows, cols, 0.04);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      const std::int64_t cell = r * cols + c;
      const int border_dims = (r == 0 || r == rows - 1) + (c == 0 || c == cols - 1);
      const std::size_t expected = border_dims == 2 ? 3 : border_dims == 1 ? 5 : 8;
      CAPTURE(cell);
      const auto src = sources_of(net, cell);
      CHECK(src.size() == expected);
      for (std::size_t k = 0; k < src.size(); ++k) {
        CHECK(src[k] != cell);
        if (k > 0) CHECK(src[k - 1] < src[k]);
        const std::int64_t sr = src[k] / cols, sc = src[k] % cols;
        CHECK(std::abs(sr - r) <= 1);
        CHECK(std::abs(sc - c) <= 1);
        // the junction exists in the other direction too
        const auto back = sources_of(net, src[k]);
        CHECK(std::find(back.begin(), back.end(), cell) != back.end());
      }
    }
  }
}

TEST_CASE("mesh2d 1xN, Nx1 and 1x1") {
  const GapNetwork row = kbrain::make_mesh2d(1, 5, 0.04);
  CHECK(row.cells == 5);
  CHECK(row.junctions() == 8);
  CHECK(sources_of(row, 0) == std::vector<std::int32_t>{1});
  CHECK(sources_of(row, 2) == std::vector<std::int32_t>{1, 3});
  CHECK(sources_of(row, 4) == std::vector<std::int32_t>{3});

  const GapNetwork column = kbrain::make_mesh2d(4, 1, 0.04);
  CHECK(column.cells == 4);
  CHECK(column.mesh_rows == 4);
  CHECK(column.mesh_cols == 1);
  CHECK(column.junctions() == 6);
  CHECK(sources_of(column, 0) == std::vector<std::int32_t>{1});
  CHECK(sources_of(column, 1) == std::vector<std::int32_t>{0, 2});
  CHECK(sources_of(column, 3) == std::vector<std::int32_t>{2});

  const GapNetwork single = kbrain::make_mesh2d(1, 1, 0.04);
  CHECK(single.cells == 1);
  CHECK(single.offsets == std::vector<std::int64_t>{0, 0});
  CHECK(single.junctions() == 0);
}

TEST_CASE("mesh2d rejects bad sizes") {
  CHECK_THROWS_AS(kbrain::make_mesh2d(0, 4, 0.04), std::invalid_argument);
  CHECK_THROWS_AS(kbrain::make_mesh2d(4, -1, 0.04), std::invalid_argument);
  CHECK_THROWS_AS(kbrain::make_mesh2d(50000, 50000, 0.04), std::invalid_argument);  // 2.5e9 > INT32_MAX
  CHECK_THROWS_AS(kbrain::make_mesh2d(2, 2, -0.04), std::invalid_argument);
}

TEST_CASE("all_to_all: every other cell, ascending") {
  const GapNetwork net = kbrain::make_all_to_all(5, 0.04);
  CHECK(net.cells == 5);
  CHECK(!net.is_mesh());
  CHECK(net.junctions() == 20);
  CHECK(net.conductance.empty());
  CHECK(net.constant_conductance == 0.04);
  CHECK(sources_of(net, 0) == std::vector<std::int32_t>{1, 2, 3, 4});
  CHECK(sources_of(net, 2) == std::vector<std::int32_t>{0, 1, 3, 4});
  CHECK(sources_of(net, 4) == std::vector<std::int32_t>{0, 1, 2, 3});

  CHECK(kbrain::make_all_to_all(1, 0.04).junctions() == 0);
  CHECK_THROWS_AS(kbrain::make_all_to_all(0, 0.04), std::invalid_argument);
  CHECK_THROWS_AS(kbrain::make_all_to_all(3'000'000'000LL, 0.04), std::invalid_argument);
}

TEST_CASE("conductance matrix: the all2all10 reference file") {
  const fs::path file = fs::path(KBRAIN_TEST_DATA_DIR) / "io/all2all10/conductance_matrix.txt";
  REQUIRE(fs::exists(file));
  const GapNetwork net = kbrain::read_conductance_matrix(file, 10);
  CHECK(net.cells == 10);
  CHECK(net.junctions() == 90);
  CHECK(net.conductance.empty());
  CHECK(net.constant_conductance == 0.04);
  for (std::int64_t cell = 0; cell < 10; ++cell) {
    CAPTURE(cell);
    std::vector<std::int32_t> expected;
    for (std::int32_t s = 0; s < 10; ++s) {
      if (s != cell) expected.push_back(s);
    }
    CHECK(sources_of(net, cell) == expected);
  }
  CHECK(kbrain::read_conductance_matrix(file, 0).cells == 10);
  const std::string message = runtime_error_of([&] { kbrain::read_conductance_matrix(file, 12); });
  CHECK(contains(message, "conductance_matrix.txt:1:"));
  CHECK(contains(message, "expected 12 cells"));
}

TEST_CASE("conductance matrix: column j lists the cells j receives from (transposition)") {
  TempDir tmp;
  // row i, column j = conductance through which cell j receives current from cell i
  const fs::path file = tmp.write("asym.txt",
                                  "0   0.1 0\n"
                                  "0.2 0   0.3\n"
                                  "0.5 0   0\n");
  const GapNetwork net = kbrain::read_conductance_matrix(file, 3);
  CHECK(net.cells == 3);
  CHECK(net.junctions() == 4);
  REQUIRE(net.conductance.size() == 4);
  CHECK(sources_of(net, 0) == std::vector<std::int32_t>{1, 2});
  CHECK(conductances_of(net, 0) == std::vector<double>{0.2, 0.5});
  CHECK(sources_of(net, 1) == std::vector<std::int32_t>{0});
  CHECK(conductances_of(net, 1) == std::vector<double>{0.1});
  CHECK(sources_of(net, 2) == std::vector<std::int32_t>{1});
  CHECK(conductances_of(net, 2) == std::vector<double>{0.3});

  // no junctions at all, CRLF line ends and a trailing blank line are accepted
  const GapNetwork empty = kbrain::read_conductance_matrix(tmp.write("zero.txt", "0 0\r\n0.00 0\r\n\n"), 2);
  CHECK(empty.cells == 2);
  CHECK(empty.junctions() == 0);
  CHECK(empty.offsets == std::vector<std::int64_t>{0, 0, 0});
}

TEST_CASE("conductance matrix: malformed input names file and line") {
  TempDir tmp;
  const auto error_for = [&](const std::string& name, const std::string& content, std::int64_t expected = 0) {
    const fs::path file = tmp.write(name, content);
    return runtime_error_of([&] { kbrain::read_conductance_matrix(file, expected); });
  };

  std::string m = runtime_error_of([&] { kbrain::read_conductance_matrix(tmp.path / "missing.txt", 0); });
  CHECK(contains(m, "missing.txt"));
  CHECK(contains(m, "cannot open"));

  m = error_for("token.txt", "0 0.1 0\n0.1 0.0x4 0\n0 0 0\n");
  CHECK(contains(m, "token.txt:2:"));
  CHECK(contains(m, "\"0.0x4\""));

  m = error_for("length.txt", "0 1 1\n1 0 1\n1 1\n");
  CHECK(contains(m, "length.txt:3:"));
  CHECK(contains(m, "line 3 has 2 values, expected 3"));

  m = error_for("short.txt", "0 1 1\n1 0 1\n");
  CHECK(contains(m, "short.txt:2:"));
  CHECK(contains(m, "ends after 2 rows"));
  CHECK(contains(m, "square"));

  m = error_for("long.txt", "0 1\n1 0\n1 1\n");
  CHECK(contains(m, "long.txt:3:"));
  CHECK(contains(m, "more than 2 rows"));

  m = error_for("negative.txt", "0 0.1\n-0.1 0\n");
  CHECK(contains(m, "negative.txt:2:"));
  CHECK(contains(m, "negative conductance -0.1"));

  m = error_for("diagonal.txt", "0 0.1\n0.1 0.04\n");
  CHECK(contains(m, "diagonal.txt:2:"));
  CHECK(contains(m, "diagonal entry (cell 1)"));

  m = error_for("size.txt", "0 1\n1 0\n", 3);
  CHECK(contains(m, "size.txt:1:"));
  CHECK(contains(m, "expected 3 cells"));

  m = error_for("empty.txt", "");
  CHECK(contains(m, "empty.txt"));
  CHECK(contains(m, "empty file"));
  CHECK(contains(error_for("blank.txt", "\n  \n"), "empty file"));

  m = error_for("nan.txt", "0 nan\n0 0\n");
  CHECK(contains(m, "nan.txt:1:"));
  CHECK(contains(m, "\"nan\""));
}

TEST_CASE("edge list: round trip of a mesh, with comments, any line order and a constant conductance") {
  TempDir tmp;
  const GapNetwork mesh = kbrain::make_mesh2d(4, 5, 0.05);
  std::string text = "# kbrain edge list v1\n\n  # generated by the test\ncells 20\nconductance 0.05  # mS/cm2\n";
  for (std::int64_t target = mesh.cells - 1; target >= 0; --target) {  // reverse order: the reader sorts
    const auto src = sources_of(mesh, target);
    for (auto it = src.rbegin(); it != src.rend(); ++it) text += fmt::format("{} {}\n", target, *it);
  }
  const GapNetwork net = kbrain::read_edge_list(tmp.write("mesh.edges", text), 20);
  CHECK(net.cells == 20);
  CHECK(!net.is_mesh());
  CHECK(net.offsets == mesh.offsets);
  CHECK(net.sources == mesh.sources);
  CHECK(net.conductance.empty());
  CHECK(net.constant_conductance == 0.05);

  const GapNetwork defaulted = kbrain::read_edge_list(tmp.write("default.edges", "cells 3\n0 1\n2 1\n"), 0);
  CHECK(defaulted.cells == 3);
  CHECK(defaulted.constant_conductance == 0.04);
  CHECK(defaulted.offsets == std::vector<std::int64_t>{0, 1, 1, 2});
  CHECK(defaulted.sources == std::vector<std::int32_t>{1, 1});

  const GapNetwork no_junctions = kbrain::read_edge_list(tmp.write("none.edges", "cells 2\n"), 2);
  CHECK(no_junctions.junctions() == 0);
  CHECK(no_junctions.offsets == std::vector<std::int64_t>{0, 0, 0});
}

TEST_CASE("edge list: per-junction conductances follow their junctions") {
  TempDir tmp;
  const GapNetwork net = kbrain::read_edge_list(tmp.write("g.edges",
                                                          "cells 4\n"
                                                          "3 0 0.3\n"
                                                          "0 2 0.02\n"
                                                          "0 1 0.01\n"
                                                          "3 2 0.32\n"
                                                          "1 0 0.1\t# trailing comment\n"),
                                                0);
  CHECK(net.cells == 4);
  REQUIRE(net.conductance.size() == 5);
  CHECK(sources_of(net, 0) == std::vector<std::int32_t>{1, 2});
  CHECK(conductances_of(net, 0) == std::vector<double>{0.01, 0.02});
  CHECK(sources_of(net, 1) == std::vector<std::int32_t>{0});
  CHECK(conductances_of(net, 1) == std::vector<double>{0.1});
  CHECK(sources_of(net, 2).empty());
  CHECK(sources_of(net, 3) == std::vector<std::int32_t>{0, 2});
  CHECK(conductances_of(net, 3) == std::vector<double>{0.3, 0.32});

  // equal per-junction conductances collapse to a constant
  const GapNetwork same = kbrain::read_edge_list(tmp.write("same.edges", "cells 2\n0 1 0.07\n1 0 0.07\n"), 2);
  CHECK(same.conductance.empty());
  CHECK(same.constant_conductance == 0.07);
}

TEST_CASE("edge list: malformed input names file and line") {
  TempDir tmp;
  const auto error_for = [&](const std::string& content, std::int64_t expected = 0) {
    const fs::path file = tmp.write("bad.edges", content);
    return runtime_error_of([&] { kbrain::read_edge_list(file, expected); });
  };
  std::string m;

  CHECK(contains(runtime_error_of([&] { kbrain::read_edge_list(tmp.path / "nope.edges", 0); }), "nope.edges"));

  m = error_for("# comment\n0 1\n");
  CHECK(contains(m, "bad.edges:2:"));
  CHECK(contains(m, "missing header"));
  m = error_for("# only comments\n\n");
  CHECK(contains(m, "bad.edges"));
  CHECK(contains(m, "missing header"));
  CHECK(contains(error_for("cells ten\n"), "bad.edges:1: malformed header"));

  m = error_for("cells 5\n0 1\n0 5\n");
  CHECK(contains(m, "bad.edges:3:"));
  CHECK(contains(m, "source 5 out of range [0, 5)"));
  m = error_for("cells 5\n-1 2\n");
  CHECK(contains(m, "bad.edges:2:"));
  CHECK(contains(m, "target -1 out of range"));

  m = error_for("cells 5\n0 1\n3 3\n");
  CHECK(contains(m, "bad.edges:3:"));
  CHECK(contains(m, "self junction"));

  m = error_for("cells 5\n2 1\n0 1\n2 1\n");
  CHECK(contains(m, "bad.edges:4:"));
  CHECK(contains(m, "duplicate junction 2 <- 1 (first on line 2)"));

  m = error_for("cells 5\n2 1 0.1\n0 1 -0.2\n");
  CHECK(contains(m, "bad.edges:3:"));
  CHECK(contains(m, "negative conductance -0.2"));
  CHECK(contains(error_for("cells 5\nconductance -1\n"), "bad.edges:2: negative conductance"));

  m = error_for("cells 5\n2 1 0.1\n0 1\n");
  CHECK(contains(m, "bad.edges:3:"));
  CHECK(contains(m, "but line 2 has 3"));
  m = error_for("cells 5\nconductance 0.1\n2 1 0.1\n");
  CHECK(contains(m, "bad.edges:3:"));
  CHECK(contains(m, "line 2 sets a constant"));

  m = error_for("cells 5\n2 x\n");
  CHECK(contains(m, "bad.edges:2:"));
  CHECK(contains(m, "\"x\" is not a cell id"));
  m = error_for("cells 5\n2 1.5\n");
  CHECK(contains(m, "\"1.5\" is not a cell id"));
  m = error_for("cells 5\n2 1 0.1 extra\n");
  CHECK(contains(m, "bad.edges:2:"));
  CHECK(contains(m, "found 4 value(s)"));
  m = error_for("cells 5\n2 1 0.1abc\n");
  CHECK(contains(m, "\"0.1abc\" is not a finite number"));
  // A foreign or binary file: the token is shown escaped and cut, so the message stays one short line.
  m = error_for("cells 5\n2 1 0.1" + std::string(1, '\0') + "\x01" + std::string(100, 'z') + "\n");
  CHECK(contains(m, "\"0.1\\x00\\x01zzz"));
  CHECK(contains(m, "...\" is not a finite number"));
  CHECK(m.find('\0') == std::string::npos);
  CHECK(m.size() < 200);
  CHECK(contains(error_for("cells 5\n2 1\ncells 5\n"), "bad.edges:3: second 'cells' header"));

  m = error_for("cells 5\n2 1\n", 6);
  CHECK(contains(m, "bad.edges:1:"));
  CHECK(contains(m, "expected 6 cells"));
}

TEST_CASE("edge list: the header's cell count is checked before anything of its size is allocated") {
  TempDir tmp;
  // `cells 2147483647` alone would size 16 GiB of CSR offsets: the caller's check sees the count first
  const fs::path huge = tmp.write("huge.edges", "# header only\ncells 2147483647\n");
  std::vector<std::int64_t> seen;
  const auto refuse = [&](std::int64_t cells) {
    seen.push_back(cells);
    throw std::runtime_error("refused " + std::to_string(cells));
  };
  CHECK(runtime_error_of([&] { kbrain::read_edge_list(huge, 0, refuse); }) == "refused 2147483647");
  CHECK(seen == std::vector<std::int64_t>{2147483647});
  seen.clear();
  const GapNetwork net =
      kbrain::read_edge_list(tmp.write("small.edges", "cells 3\n0 1\n2 1\n"), 0, [&](std::int64_t c) { seen.push_back(c); });
  CHECK(seen == std::vector<std::int64_t>{3});
  CHECK(net.junctions() == 2);
}

TEST_SUITE_END();
