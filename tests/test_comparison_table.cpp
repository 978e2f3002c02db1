// ComparisonTable (the generic compare report): speedups, Markdown, CSV, JSON and the partial/complete file set.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/report/comparison_table.hpp"
#include "tests/json_reader.hpp"
#include "tests/test_helpers.hpp"

namespace fs = std::filesystem;
using kbrain::test::TempDir;
using kbrain::test::read_text;
using namespace kbrain::test;
using namespace kbrain;

namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(s);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> table_lines(const std::string& md) {
  std::vector<std::string> table;
  for (const auto& line : lines_of(md))
    if (line.rfind("|", 0) == 0) table.push_back(line);
  return table;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ComparisonTableRow row(const std::string& size, const std::string& backend, const std::string& precision,
                       double seconds_per_step, std::int64_t steps = 2000) {
  ComparisonTableRow r;
  r.size_label = size;
  r.backend = backend;
  r.precision = precision;
  r.steps = steps;
  r.steps_requested = 2000;
  r.simulate_s = seconds_per_step * static_cast<double>(steps);
  // columns: cells (int), simulate_s (sig3), max ΔV (sig3), rate diff (pct), identical (text)
  r.values = {ReportValue::num(size == "10x10" ? 100 : 400), ReportValue::num(r.simulate_s),
              ReportValue::num(kNaN), ReportValue::num(kNaN), ReportValue::str("n/a")};
  return r;
}

// 10x10: serial/openmp/cuda in double, serial/cuda in float (no OpenMP float); 20x20: only CUDA ran.
ComparisonTable sample_table() {
  ComparisonTable t;
  t.experiment = "io_mesh";
  t.model = "inferior olive";
  t.date = "2024-05-01";
  t.commit = "abc1234";
  t.command = "kbrain compare experiments/io_mesh.toml";
  t.kokkos = "4.3.1";
  t.dt_ms = 0.05;
  t.hardware = {{"serial", "AMD EPYC (1 thread)"}, {"cuda", "NVIDIA H100, \"SXM\""}};
  t.columns = {{"cells", "cells", "int"},
               {"simulate_s", "simulate s", "sig3"},
               {"max_abs_dv_axon_mV", "max |ΔV_axon| mV", "sig3"},
               {"max_rate_diff_pct", "max Δrate", "pct"},
               {"identical_spikes", "identical spikes", "text"}};
  t.rows = {row("10x10", "serial", "double", 1e-3, 500), row("10x10", "openmp", "double", 2e-4),
            row("10x10", "cuda", "double", 2e-5),        row("10x10", "serial", "float", 8e-4),
            row("10x10", "cuda", "float", 1e-5),         row("20x20", "cuda", "double", 5e-6)};
  t.rows[0].values[2] = ReportValue::num(0);
  t.rows[2].values[2] = ReportValue::num(1.25e-9);
  t.rows[2].values[3] = ReportValue::num(0.5);
  t.rows[2].values[4] = ReportValue::str("yes");
  t.rows[4].note = "a|b, \"quoted\"";
  return t;
}

}  // namespace

TEST_SUITE_BEGIN("report");

TEST_CASE("comparison table: speedups are time-per-step ratios within (size_label, precision)") {
  ComparisonTable t = sample_table();
  compute_speedups(t);
  CHECK(t.rows[0].speedup_vs_serial == doctest::Approx(1.0));
  CHECK(t.rows[0].speedup_vs_openmp == doctest::Approx(0.2));
  CHECK(t.rows[1].speedup_vs_serial == doctest::Approx(5.0));
  CHECK(t.rows[1].speedup_vs_openmp == doctest::Approx(1.0));
  CHECK(t.rows[2].speedup_vs_serial == doctest::Approx(50.0));  // per step: the serial row ran 500 steps only
  CHECK(t.rows[2].speedup_vs_openmp == doctest::Approx(10.0));
  CHECK(t.rows[4].speedup_vs_serial == doctest::Approx(80.0));  // float against float serial, not double
  CHECK(std::isnan(t.rows[4].speedup_vs_openmp));               // no OpenMP float row
  CHECK(std::isnan(t.rows[3].speedup_vs_openmp));
  CHECK(std::isnan(t.rows[5].speedup_vs_serial));               // a size only CUDA ran
  CHECK(std::isnan(t.rows[5].speedup_vs_openmp));

  t.rows[1].simulate_s = 0;  // a broken timing gives no ratio instead of infinity
  t.rows[3].steps = 0;       // nor does a row without steps
  compute_speedups(t);
  CHECK(std::isnan(t.rows[1].speedup_vs_serial));
  CHECK(std::isnan(t.rows[2].speedup_vs_openmp));
  CHECK(t.rows[2].speedup_vs_serial == doctest::Approx(50.0));
  CHECK(std::isnan(t.rows[4].speedup_vs_serial));

  // Two groups with the same backends: each compares with its own serial row.
  ComparisonTable sweep;
  sweep.rows = {row("d=10", "serial", "double", 1e-3), row("d=10", "cuda", "double", 1e-5),
                row("d=100", "serial", "double", 9e-3), row("d=100", "cuda", "double", 3e-5)};
  compute_speedups(sweep);
  CHECK(sweep.rows[1].speedup_vs_serial == doctest::Approx(100.0));
  CHECK(sweep.rows[3].speedup_vs_serial == doctest::Approx(300.0));
}

TEST_CASE("comparison table: markdown header, columns, missing values, reduced rows") {
  ComparisonTable t = sample_table();
  compute_speedups(t);
  const std::string md = to_markdown(t);
  CHECK(md.rfind("# kbrain compare: io_mesh\n\n- Model: inferior olive\n- Date: 2024-05-01\n- Commit: abc1234\n"
                 "- Kokkos: 4.3.1\n- dt: 0.05 ms\n- Command: `kbrain compare experiments/io_mesh.toml`\n\n"
                 "## Hardware\n\n- **serial**: AMD EPYC (1 thread)\n- **cuda**: NVIDIA H100, \"SXM\"\n\n## Results\n\n",
                 0) == 0);

  const auto table = table_lines(md);
  REQUIRE(table.size() == 2 + t.rows.size());  // header, alignment, rows
  CHECK(table[0] ==
        "| size | backend | precision | steps | cells | simulate s | max \\|ΔV_axon\\| mV | max Δrate | identical spikes "
        "| vs serial | vs OpenMP | note |");
  CHECK(table[1] == "|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|");
  // serial double ran 500 of 2000 steps: marked; NaN shown as —, a NaN percentage too (no " %")
  CHECK(table[2] == "| 10x10 | serial | double | 500† | 100 | 0.5 | 0 | — | n/a | 1 | 0.2 |  |");
  CHECK(table[4] == "| 10x10 | cuda | double | 2000 | 100 | 0.04 | 1.25e-09 | 0.5 % | yes | 50 | 10 |  |");
  CHECK(table[6] == "| 10x10 | cuda | float | 2000 | 100 | 0.02 | — | — | n/a | 80 | — | a\\|b, \"quoted\" |");
  CHECK(table[7] == "| 20x20 | cuda | double | 2000 | 400 | 0.01 | — | — | n/a | — | — |  |");

  const std::string footnote =
      "† run with 500 of 2000 steps (serial budget); times per step are comparable, agreement is over the steps run";
  CHECK(md.find(footnote) != std::string::npos);
  CHECK(md.find(footnote) > md.find(table.back()));  // under the table

  // sig3: 3 significant digits, no decimals from 1000 up; int: all digits; text in a number column is shown as is
  t.rows[3].values[0] = ReportValue::num(1234567);
  t.rows[3].values[1] = ReportValue::num(1234.4);
  t.rows[3].values[2] = ReportValue::num(0.000123456);
  t.rows[3].values[3] = ReportValue::num(12.345);
  t.rows[3].values[4] = ReportValue::num(2.0);  // a number in a text column: sig3
  t.rows[5].values[2] = ReportValue::str("not\nrun");
  const auto more = table_lines(to_markdown(t));
  CHECK(more[5].rfind("| 10x10 | serial | float | 2000 | 1234567 | 1234 | 0.000123 | 12.3 % | 2 |", 0) == 0);
  CHECK(more[7] == "| 20x20 | cuda | double | 2000 | 400 | 0.01 | not run | — | n/a | — | — |  |");

  t.hardware[0].second = "two\nlines";  // a line break would end the list item
  CHECK(to_markdown(t).find("- **serial**: two lines\n") != std::string::npos);

  t.rows[0].steps = 2000;
  const std::string full = to_markdown(t);
  CHECK(full.find("serial budget") == std::string::npos);
  CHECK(full.find("†") == std::string::npos);
  CHECK(to_markdown(t) == full);  // deterministic

  ComparisonTable bare;  // no model, commit or Kokkos version recorded; no hardware, no columns, no rows
  const std::string b = to_markdown(bare);
  CHECK(b.find("Model") == std::string::npos);
  CHECK(b.find("- Commit: —\n- Kokkos: —\n") != std::string::npos);
  CHECK(b.find("- (not recorded)\n") != std::string::npos);
  CHECK(table_lines(b) == std::vector<std::string>{"| size | backend | precision | steps | vs serial | vs OpenMP | note |",
                                                   "|---|---|---|---:|---:|---:|---|"});
}

TEST_CASE("comparison table: csv has the common and the model's columns, RFC 4180 quoting, NaN empty") {
  TempDir dir("table_csv");
  ComparisonTable t = sample_table();
  t.rows[5].size_label = "gaussian, d=10";
  compute_speedups(t);
  write_csv(dir.path / "compare.csv", t);
  CHECK_FALSE(fs::exists(dir.path / "compare.csv.tmp"));
  const auto lines = lines_of(read_text(dir.path / "compare.csv"));
  REQUIRE(lines.size() == 1 + t.rows.size());
  CHECK(lines[0] ==
        "size_label,backend,precision,steps,steps_requested,cells,simulate_s,max_abs_dv_axon_mV,max_rate_diff_pct,"
        "identical_spikes,speedup_vs_serial,speedup_vs_openmp,note");
  // numbers are written with the shortest text that reads back to the same double
  CHECK(lines[1] == "10x10,serial,double,500,2000,100,0.5,0,,n/a,1,0.2,");
  CHECK(lines[3] == "10x10,cuda,double,2000,2000,100,0.04,1.25e-09,0.5,yes,50,10,");
  CHECK(lines[5] == "10x10,cuda,float,2000,2000,100,0.02,,,n/a,80,,\"a|b, \"\"quoted\"\"\"");
  CHECK(lines[6] == "\"gaussian, d=10\",cuda,double,2000,2000,400,0.01,,,n/a,,,");
}

TEST_CASE("comparison table: json parses, has every key, values round-trip, NaN as null") {
  TempDir dir("table_json");
  ComparisonTable t = sample_table();
  t.rows[3].note = "tab\tline\nbreak \\ \"q\"";
  t.rows[3].values[1] = ReportValue::num(0.1 + 0.2);  // 0.30000000000000004 must come back exactly
  compute_speedups(t);
  write_json(dir.path / "compare.json", t);
  CHECK_FALSE(fs::exists(dir.path / "compare.json.tmp"));
  const std::string text = read_text(dir.path / "compare.json");
  const Json j = parse_json(text);
  REQUIRE(j.kind == Json::object);
  for (const char* key : {"experiment", "model", "date", "commit", "command", "kokkos", "dt_ms", "hardware", "columns",
                          "rows"})
    CHECK_MESSAGE(j.has(key), key);
  CHECK(j["experiment"].s == "io_mesh");
  CHECK(j["model"].s == "inferior olive");
  CHECK(j["dt_ms"].n == 0.05);
  REQUIRE(j["hardware"].items.size() == 2);
  CHECK(j["hardware"].items[1]["backend"].s == "cuda");
  CHECK(j["hardware"].items[1]["description"].s == "NVIDIA H100, \"SXM\"");
  REQUIRE(j["columns"].items.size() == t.columns.size());
  CHECK(j["columns"].items[2]["key"].s == "max_abs_dv_axon_mV");
  CHECK(j["columns"].items[2]["heading"].s == "max |ΔV_axon| mV");
  CHECK(j["columns"].items[3]["format"].s == "pct");

  const auto& rows = j["rows"].items;
  REQUIRE(rows.size() == t.rows.size());
  const std::vector<std::string> keys = {"size_label", "backend",   "precision",          "steps",
                                         "steps_requested", "cells", "simulate_s",   "max_abs_dv_axon_mV",
                                         "max_rate_diff_pct", "identical_spikes", "speedup_vs_serial",
                                         "speedup_vs_openmp", "note"};
  for (const auto& r : rows) {
    REQUIRE(r.members.size() == keys.size());
    for (std::size_t k = 0; k < keys.size(); ++k) CHECK(r.members[k].first == keys[k]);  // in CSV order
  }
  CHECK(rows[0]["steps"].n == 500);
  CHECK(rows[0]["steps_requested"].n == 2000);
  CHECK(rows[0]["max_rate_diff_pct"].kind == Json::null);
  CHECK(rows[2]["max_abs_dv_axon_mV"].n == 1.25e-9);
  CHECK(rows[2]["speedup_vs_serial"].n == t.rows[2].speedup_vs_serial);
  CHECK(rows[2]["identical_spikes"].s == "yes");
  CHECK(rows[3]["simulate_s"].n == 0.1 + 0.2);
  CHECK(rows[3]["note"].s == t.rows[3].note);
  CHECK(rows[4]["speedup_vs_openmp"].kind == Json::null);
  CHECK(rows[4]["note"].s == "a|b, \"quoted\"");
  CHECK(text.find("nan") == std::string::npos);

  write_json(dir.path / "again.json", t);
  CHECK(read_text(dir.path / "again.json") == text);  // deterministic

  ComparisonTable empty;
  write_json(dir.path / "empty.json", empty);
  const Json e = parse_json(read_text(dir.path / "empty.json"));
  CHECK(e["hardware"].items.empty());
  CHECK(e["columns"].items.empty());
  CHECK(e["rows"].kind == Json::array);
  CHECK(e["rows"].items.empty());
}

TEST_CASE("comparison table: a malformed table is refused before anything is written") {
  TempDir dir("table_bad");
  ComparisonTable t = sample_table();
  t.rows[1].values.pop_back();
  CHECK_THROWS_AS(to_markdown(t), std::invalid_argument);
  CHECK_THROWS_AS(write_csv(dir.path / "x.csv", t), std::invalid_argument);
  CHECK_THROWS_AS(save_comparison(dir.path, t, false), std::invalid_argument);
  CHECK(fs::is_empty(dir.path));

  t = sample_table();
  t.columns[1].key = "note";  // taken by a common column
  CHECK_THROWS_AS(write_json(dir.path / "x.json", t), std::invalid_argument);
  t = sample_table();
  t.columns[1].key = "cells";  // repeated
  CHECK_THROWS_AS(write_csv(dir.path / "x.csv", t), std::invalid_argument);
  t = sample_table();
  t.columns[1].format = "sig4";
  CHECK_THROWS_AS(to_markdown(t), std::invalid_argument);
  CHECK(fs::is_empty(dir.path));
}

TEST_CASE("comparison table: partial files while running, complete files at the end") {
  TempDir dir("table_files");
  const fs::path out = dir.path / "out";
  const auto present = [&out](const std::string& name) {
    return fs::exists(out / (name + ".md")) && fs::exists(out / (name + ".csv")) && fs::exists(out / (name + ".json"));
  };
  const auto absent = [&out](const std::string& name) {
    return !fs::exists(out / (name + ".md")) && !fs::exists(out / (name + ".csv")) &&
           !fs::exists(out / (name + ".json"));
  };
  const auto listing = [&out] {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(out)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };

  ComparisonTable t = sample_table();
  const auto all_rows = t.rows;
  t.rows.resize(2);
  const std::string partial = save_comparison(out, t, false);  // creates the folder
  CHECK(partial.rfind("> **Partial:** 2 rows so far; the comparison is still running or was interrupted.\n\n"
                      "# kbrain compare: io_mesh\n",
                      0) == 0);
  CHECK(present("compare.partial"));
  CHECK(absent("compare"));
  CHECK(read_text(out / "compare.partial.md") == partial);
  CHECK(t.rows[1].speedup_vs_serial == doctest::Approx(5.0));  // speedups computed by the save
  CHECK(lines_of(read_text(out / "compare.partial.csv")).size() == 3);

  t.rows = all_rows;
  const std::string complete = save_comparison(out, t, true);
  CHECK(complete.rfind("# kbrain compare: io_mesh\n", 0) == 0);
  CHECK(complete.find("Partial") == std::string::npos);
  CHECK(present("compare"));
  CHECK(absent("compare.partial"));  // the partial files are removed once the complete ones are written
  CHECK(read_text(out / "compare.md") == complete);
  CHECK(parse_json(read_text(out / "compare.json"))["rows"].items.size() == all_rows.size());
  CHECK(listing() == std::vector<std::string>{"compare.csv", "compare.json", "compare.md"});  // no temporary left

  // A new comparison into the same folder: its first partial save removes the earlier run's complete files.
  t.rows.resize(1);
  save_comparison(out, t, false);
  CHECK(present("compare.partial"));
  CHECK(absent("compare"));
  CHECK(read_text(out / "compare.partial.md").rfind("> **Partial:** 1 rows so far;", 0) == 0);
  CHECK(listing() == std::vector<std::string>{"compare.partial.csv", "compare.partial.json", "compare.partial.md"});

  // publish_comparison: complete and printed.
  t.rows = all_rows;
  publish_comparison(out, t);
  CHECK(present("compare"));
  CHECK(absent("compare.partial"));
}

TEST_CASE("comparison table: a file is replaced whole, or left as it was when the write fails") {
  TempDir dir("table_replace");
  ComparisonTable t = sample_table();
  write_csv(dir.path / "compare.csv", t);
  const std::string before = read_text(dir.path / "compare.csv");
  t.rows.resize(1);
  write_csv(dir.path / "compare.csv", t);  // replaced by the shorter table, nothing of the old one left
  CHECK(lines_of(read_text(dir.path / "compare.csv")).size() == 2);
  CHECK_FALSE(fs::exists(dir.path / "compare.csv.tmp"));

  write_csv(dir.path / "compare.csv", sample_table());
  // A folder where the temporary file would go: the write fails before touching compare.csv.
  fs::create_directory(dir.path / "compare.csv.tmp");
  CHECK_THROWS_AS(write_csv(dir.path / "compare.csv", t), std::runtime_error);
  CHECK(read_text(dir.path / "compare.csv") == before);
}

TEST_SUITE_END();
