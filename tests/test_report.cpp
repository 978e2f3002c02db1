// ComparisonReport: speedups, Markdown table and footnote, CSV and JSON contents.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/report/comparison_report.hpp"
#include "tests/test_helpers.hpp"

namespace fs = std::filesystem;
using kbrain::test::TempDir;
using kbrain::test::read_text;
using namespace kbrain;

namespace {



std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(s);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

ComparisonRow row(std::int64_t cells, const std::string& backend, const std::string& precision, double ns,
                  std::int64_t steps = 2000) {
  ComparisonRow r;
  r.cells = cells;
  r.junctions = 2 * cells;
  r.size_label = cells == 100 ? "10x10" : "";
  r.backend = backend;
  r.precision = precision;
  r.steps = steps;
  r.steps_requested = 2000;
  r.ns_per_cell_step = ns;
  r.simulate_s = ns * 1e-9 * static_cast<double>(cells * steps);
  r.setup_s = 0.0123456;
  r.output_s = 1234.4;
  r.wall_s_per_bio_s = r.simulate_s / (static_cast<double>(steps) * 0.05 / 1000);
  r.spikes = 42;
  return r;
}

// serial/openmp/cuda in double, serial/cuda in float (no OpenMP float), and a size only CUDA ran.
ComparisonReport sample_report() {
  ComparisonReport r;
  r.experiment = "io_mesh";
  r.date = "2024-05-01";
  r.commit = "abc1234";
  r.command = "kbrain compare experiments/io_mesh.toml";
  r.kokkos = "4.3.1";
  r.dt_ms = 0.05;
  r.hardware = {{"serial", "AMD EPYC (1 thread)"}, {"cuda", "NVIDIA H100, \"SXM\""}};
  r.rows = {row(100, "serial", "double", 100.0, 500), row(100, "openmp", "double", 20.0),
            row(100, "cuda", "double", 2.0),           row(100, "serial", "float", 80.0),
            row(100, "cuda", "float", 1.0),            row(400, "cuda", "double", 0.5)};
  r.rows[0].max_abs_dv_axon = 0;
  r.rows[2].max_abs_dv_axon = 1.25e-9;
  r.rows[2].reference_spikes = 40;
  r.rows[4].note = "a|b, \"quoted\"";
  return r;
}

}  // namespace

TEST_SUITE_BEGIN("report");

TEST_CASE("speedups are ns/cell-step ratios within (cells, precision)") {
  ComparisonReport r = sample_report();
  compute_speedups(r);
  CHECK(r.rows[0].speedup_vs_serial == doctest::Approx(1.0));
  CHECK(r.rows[0].speedup_vs_openmp == doctest::Approx(0.2));
  CHECK(r.rows[1].speedup_vs_serial == doctest::Approx(5.0));
  CHECK(r.rows[1].speedup_vs_openmp == doctest::Approx(1.0));
  CHECK(r.rows[2].speedup_vs_serial == doctest::Approx(50.0));
  CHECK(r.rows[2].speedup_vs_openmp == doctest::Approx(10.0));
  CHECK(r.rows[4].speedup_vs_serial == doctest::Approx(80.0));  // float compared with float serial, not double
  CHECK(std::isnan(r.rows[4].speedup_vs_openmp));                // no OpenMP float row
  CHECK(std::isnan(r.rows[3].speedup_vs_openmp));
  CHECK(std::isnan(r.rows[5].speedup_vs_serial));                // size only CUDA ran
  CHECK(std::isnan(r.rows[5].speedup_vs_openmp));

  r.rows[1].ns_per_cell_step = 0;  // a broken timing gives no ratio instead of infinity
  compute_speedups(r);
  CHECK(std::isnan(r.rows[1].speedup_vs_serial));
  CHECK(std::isnan(r.rows[2].speedup_vs_openmp));
  CHECK(r.rows[2].speedup_vs_serial == doctest::Approx(50.0));
}

TEST_CASE("speedups: a density sweep at one size compares each density with its own serial row") {
  ComparisonReport r;
  r.rows = {row(1000, "serial", "double", 100.0), row(1000, "cuda", "double", 1.0),
            row(1000, "serial", "double", 900.0), row(1000, "cuda", "double", 3.0)};
  r.rows[0].size_label = r.rows[1].size_label = "gaussian3d d=10";
  r.rows[2].size_label = r.rows[3].size_label = "gaussian3d d=100";
  compute_speedups(r);
  CHECK(r.rows[1].speedup_vs_serial == doctest::Approx(100.0));
  CHECK(r.rows[3].speedup_vs_serial == doctest::Approx(300.0));  // not 100 / 3 against the d=10 serial row
}

TEST_CASE("markdown: heading, hardware, one table row per result, footnote for reduced runs") {
  ComparisonReport r = sample_report();
  compute_speedups(r);
  const std::string md = to_markdown(r);
  CHECK(md.rfind("# kbrain compare: io_mesh\n", 0) == 0);
  for (const char* expected : {"2024-05-01", "abc1234", "Kokkos: 4.3.1", "dt: 0.05 ms", "- **serial**: AMD EPYC",
                               "- **cuda**: NVIDIA H100, \"SXM\""})
    CHECK_MESSAGE(md.find(expected) != std::string::npos, expected);

  std::vector<std::string> table;
  for (const auto& line : lines_of(md))
    if (line.rfind("|", 0) == 0) table.push_back(line);
  REQUIRE(table.size() == 2 + r.rows.size());  // header, alignment, rows
  CHECK(table[0] ==
        "| cells | junctions | backend | precision | steps | setup s | simulate s | output s | ns/cell-step | wall s "
        "per bio s | × serial | × OpenMP | max \\|ΔV_axon\\| mV | spikes (ref) | note |");
  // serial double, 500 of 2000 steps: 100 ns * 100 cells * 500 steps = 5 ms; wall/bio = 0.005 / 0.025 = 0.2
  CHECK(table[2] == "| 100 (10x10) | 200 | serial | double | 500† | 0.0123 | 0.005 | 1234 | 100 | 0.2 | 1 | 0.2 | 0 "
                    "| 42 |  |");
  CHECK(table[4] == "| 100 (10x10) | 200 | cuda | double | 2000 | 0.0123 | 0.0004 | 1234 | 2 | 0.004 | 50 | 10 | "
                    "1.25e-09 | 42 (40) |  |");
  CHECK(table[6].find("| 80 | — | — | 42 | a\\|b, \"quoted\" |") != std::string::npos);
  CHECK(table[7].rfind("| 400 | 800 | cuda | double | 2000 |", 0) == 0);
  CHECK(table[7].find("| — | — | — |") != std::string::npos);  // no speedups, no ΔV

  const std::string footnote =
      "† run with 500 of 2000 steps (serial budget); times per cell-step are comparable, agreement is over the steps "
      "run";
  CHECK(md.find(footnote) != std::string::npos);
  CHECK(md.find(footnote) > md.find(table.back()));  // under the table

  r.hardware[0].second = "two\nlines";  // a line break would end the list item
  CHECK(to_markdown(r).find("- **serial**: two lines\n") != std::string::npos);

  r.rows[0].steps = 2000;
  const std::string full = to_markdown(r);
  CHECK(full.find("serial budget") == std::string::npos);
  CHECK(full.find("†") == std::string::npos);
  CHECK(to_markdown(r) == full);  // deterministic
}

TEST_CASE("csv: header plus one line per row, all fields") {
  TempDir dir("csv");
  ComparisonReport r = sample_report();
  compute_speedups(r);
  write_csv(dir.path / "compare.csv", r);
  const auto lines = lines_of(read_text(dir.path / "compare.csv"));
  REQUIRE(lines.size() == 1 + r.rows.size());
  CHECK(lines[0] ==
        "cells,junctions,size_label,backend,precision,steps,steps_requested,setup_s,simulate_s,output_s,"
        "ns_per_cell_step,wall_s_per_bio_s,speedup_vs_serial,speedup_vs_openmp,max_abs_dv_axon_mV,spikes,"
        "reference_spikes,note");
  // numbers are written with the shortest text that reads back to the same double
  CHECK(lines[1] == "100,200,10x10,serial,double,500,2000,0.0123456,0.005,1234.4,100,0.19999999999999998,1,0.2,0,42,,");
  CHECK(lines[3].rfind("100,200,10x10,cuda,double,2000,2000,", 0) == 0);
  CHECK(lines[3].find(",50,10,1.25e-09,42,40,") != std::string::npos);
  CHECK(lines[5].find(",80,,,42,,\"a|b, \"\"quoted\"\"\"") != std::string::npos);  // NaN -> empty, RFC 4180 quotes
  CHECK(lines[6].rfind("400,800,,cuda,double,", 0) == 0);
}

TEST_CASE("json: the whole report, NaN as null, strings escaped, deterministic") {
  TempDir dir("json");
  ComparisonReport r = sample_report();
  compute_speedups(r);
  write_json(dir.path / "compare.json", r);
  const std::string json = read_text(dir.path / "compare.json");
  for (const char* expected :
       {"\"experiment\": \"io_mesh\"", "\"date\": \"2024-05-01\"", "\"kokkos\": \"4.3.1\"", "\"dt_ms\": 0.05",
        "{\"backend\": \"cuda\", \"description\": \"NVIDIA H100, \\\"SXM\\\"\"}",
        "\"speedup_vs_openmp\": null", "\"reference_spikes\": null", "\"reference_spikes\": 40",
        "\"note\": \"a|b, \\\"quoted\\\"\"", "\"steps\": 500, \"steps_requested\": 2000"})
    CHECK_MESSAGE(json.find(expected) != std::string::npos, expected);
  std::size_t objects = 0;
  for (std::size_t pos = json.find("{\"cells\": "); pos != std::string::npos; pos = json.find("{\"cells\": ", pos + 1))
    ++objects;
  CHECK(objects == r.rows.size());
  CHECK(json.find("nan") == std::string::npos);

  write_json(dir.path / "again.json", r);
  CHECK(read_text(dir.path / "again.json") == json);

  ComparisonReport empty;
  write_json(dir.path / "empty.json", empty);
  const std::string e = read_text(dir.path / "empty.json");
  CHECK(e.find("\"hardware\": [],") != std::string::npos);
  CHECK(e.find("\"rows\": []\n}") != std::string::npos);
}

TEST_SUITE_END();
