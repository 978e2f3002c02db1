// Per-cell g_CaL (constant / uniform keyed on (seed, cell) / file) and the stimulus protocols.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/inputs/g_cal.hpp"
#include "core/inputs/stimulus.hpp"
#include "core/rng/counter_rng.hpp"
#include "tests/test_helpers.hpp"

#ifndef KBRAIN_TEST_DATA_DIR
#define KBRAIN_TEST_DATA_DIR "tests/data"
#endif

namespace {

namespace fs = std::filesystem;
using kbrain::test::TempDir;
using kbrain::test::contains;
using kbrain::test::runtime_error_of;



kbrain::GCaLConfig g_cal_file(const fs::path& file) {
  kbrain::GCaLConfig cfg;
  cfg.kind = "file";
  cfg.file = file;
  return cfg;
}

kbrain::StimulusConfig cell_file(const fs::path& file) {
  kbrain::StimulusConfig cfg;
  cfg.kind = "cell_file";
  cfg.file = file;
  return cfg;
}

}  // namespace

TEST_SUITE_BEGIN("inputs");

TEST_CASE("g_CaL constant") {
  kbrain::GCaLConfig cfg;  // constant 0.68
  const auto g = kbrain::make_g_cal(cfg, 7);
  CHECK(g == std::vector<double>(7, 0.68));
  CHECK(kbrain::make_g_cal(cfg, 0).empty());
}

TEST_CASE("g_CaL uniform: in range, deterministic, keyed on (seed, cell) whatever the network size") {
  kbrain::GCaLConfig cfg;
  cfg.kind = "uniform";
  cfg.low = 0.6;
  cfg.high = 0.8;
  cfg.seed = 42;
  const auto big = kbrain::make_g_cal(cfg, 1000);
  REQUIRE(big.size() == 1000);
  for (double g : big) {
    CHECK(g >= 0.6);
    CHECK(g < 0.8);
  }
  const auto [lo, hi] = std::minmax_element(big.begin(), big.end());
  CHECK(*lo < 0.61);  // spread over the whole interval
  CHECK(*hi > 0.79);
  const double mean = std::accumulate(big.begin(), big.end(), 0.0) / 1000.0;
  CHECK(mean == doctest::Approx(0.7).epsilon(0.02));

  CHECK(kbrain::make_g_cal(cfg, 1000) == big);  // deterministic
  const auto small = kbrain::make_g_cal(cfg, 10);
  CHECK(small[5] == big[5]);
  CHECK(std::equal(small.begin(), small.end(), big.begin()));
  CHECK(big[5] == 0.6 + (0.8 - 0.6) * kbrain::counter_uniform(42, 5, 0));

  cfg.seed = 43;
  const auto other = kbrain::make_g_cal(cfg, 10);
  CHECK(other != small);

  cfg.low = 0.9;  // high < low
  CHECK_THROWS_AS(kbrain::make_g_cal(cfg, 10), kbrain::ConfigError);
}

TEST_CASE("g_CaL file: the all2all10 reference values and free whitespace layout") {
  const fs::path reference = fs::path(KBRAIN_TEST_DATA_DIR) / "io/all2all10/g_CaL.txt";
  REQUIRE(fs::exists(reference));
  const auto g = kbrain::make_g_cal(g_cal_file(reference), 10);
  CHECK(g == std::vector<double>{0.68, 0.76, 0.689, 0.67, 0.7, 0.775, 0.685, 0.702, 0.696, 0.67});

  TempDir tmp;
  const auto multi = kbrain::make_g_cal(g_cal_file(tmp.write("multi.txt", "0.7\n0.71\t0.72\r\n\n  0.73 \n")), 4);
  CHECK(multi == std::vector<double>{0.7, 0.71, 0.72, 0.73});
}

TEST_CASE("g_CaL file errors") {
  TempDir tmp;
  const auto error_for = [&](const std::string& content, std::int64_t cells) {
    const fs::path file = tmp.write("gcal.txt", content);
    return runtime_error_of([&] { kbrain::make_g_cal(g_cal_file(file), cells); });
  };
  std::string m = error_for("0.7 0.7 0.7\n", 4);
  CHECK(contains(m, "gcal.txt"));
  CHECK(contains(m, "found 3 values, expected 4"));
  CHECK(contains(error_for("0.7 0.7 0.7\n0.7 0.7\n", 4), "found 5 values, expected 4"));

  m = error_for("0.7 0.7\n0.7 O.7\n", 4);
  CHECK(contains(m, "gcal.txt:2:"));
  CHECK(contains(m, "\"O.7\""));

  m = error_for("0.7\n0.7\n-0.7\n0.7\n", 4);
  CHECK(contains(m, "gcal.txt:3:"));
  CHECK(contains(m, "negative g_CaL -0.7"));

  m = runtime_error_of([&] { kbrain::make_g_cal(g_cal_file(tmp.path / "absent.txt"), 4); });
  CHECK(contains(m, "absent.txt"));

  kbrain::GCaLConfig unknown;
  unknown.kind = "gaussian";
  CHECK_THROWS_AS(kbrain::make_g_cal(unknown, 4), kbrain::ConfigError);
}

TEST_CASE("stimulus reference pulse boundaries") {
  kbrain::StimulusConfig cfg;  // reference_pulse, 6 during [20000, 20499)
  auto stim = kbrain::make_stimulus(cfg, 10, 40000);
  CHECK(stim->uniform_current(0) == 0.0);
  CHECK(stim->uniform_current(19999) == 0.0);
  CHECK(stim->uniform_current(20000) == 6.0);
  CHECK(stim->uniform_current(20498) == 6.0);
  CHECK(stim->uniform_current(20499) == 0.0);
  CHECK(!stim->has_per_cell());
  CHECK(stim->per_cell_current(20000) == nullptr);

  cfg.amplitude = -2.5;
  cfg.start = 3;
  cfg.stop = 5;
  stim = kbrain::make_stimulus(cfg, 1, 10);
  CHECK(stim->uniform_current(2) == 0.0);
  CHECK(stim->uniform_current(3) == -2.5);
  CHECK(stim->uniform_current(4) == -2.5);
  CHECK(stim->uniform_current(5) == 0.0);

  cfg.stop = 2;  // stop < start
  CHECK_THROWS_AS(kbrain::make_stimulus(cfg, 1, 10), kbrain::ConfigError);
}

TEST_CASE("stimulus constant, schedule and unknown kind") {
  kbrain::StimulusConfig cfg;
  cfg.kind = "constant";
  cfg.value = 1.25;
  auto stim = kbrain::make_stimulus(cfg, 3, 100);
  CHECK(stim->uniform_current(0) == 1.25);
  CHECK(stim->uniform_current(99) == 1.25);

  cfg.kind = "schedule";
  cfg.schedule = {1.0, 2.0, 3.0};
  stim = kbrain::make_stimulus(cfg, 3, 100);
  CHECK(stim->uniform_current(0) == 1.0);
  CHECK(stim->uniform_current(2) == 3.0);
  CHECK(stim->uniform_current(3) == 0.0);  // past the end of the schedule
  CHECK(stim->uniform_current(99) == 0.0);

  TempDir tmp;
  cfg.schedule.clear();
  cfg.file = tmp.write("schedule.txt", "0.5\n-1\n 2e-1 \n\n");
  stim = kbrain::make_stimulus(cfg, 3, 100);
  CHECK(stim->uniform_current(0) == 0.5);
  CHECK(stim->uniform_current(1) == -1.0);
  CHECK(stim->uniform_current(2) == 0.2);
  CHECK(stim->uniform_current(3) == 0.0);

  cfg.file = tmp.write("bad_schedule.txt", "0.5\n1 2\n");
  std::string m = runtime_error_of([&] { kbrain::make_stimulus(cfg, 3, 100); });
  CHECK(contains(m, "bad_schedule.txt:2:"));
  CHECK(contains(m, "line 2 has 2 values, expected 1"));
  cfg.file = tmp.write("bad_schedule.txt", "0.5\nsix\n");
  m = runtime_error_of([&] { kbrain::make_stimulus(cfg, 3, 100); });
  CHECK(contains(m, "bad_schedule.txt:2:"));
  CHECK(contains(m, "\"six\""));
  cfg.file = tmp.write("bad_schedule.txt", "0.5\n\n1\n");
  CHECK(contains(runtime_error_of([&] { kbrain::make_stimulus(cfg, 3, 100); }), "bad_schedule.txt:2: blank line"));

  cfg.file.clear();
  CHECK_THROWS_AS(kbrain::make_stimulus(cfg, 3, 100), kbrain::ConfigError);

  cfg.kind = "ramp";
  CHECK_THROWS_AS(kbrain::make_stimulus(cfg, 3, 100), kbrain::ConfigError);
}

TEST_CASE("stimulus cell_file streams one line per step") {
  TempDir tmp;
  // line 5 is malformed: never read, because the run has 4 steps — the file is streamed, not loaded up front
  const fs::path file = tmp.write("cells.txt",
                                  "0 1 2\n"
                                  "10 11 12\n"
                                  "20\t21  22\r\n"
                                  "30 31 32\n"
                                  "garbage\n");
  auto stim = kbrain::make_stimulus(cell_file(file), 3, 4);
  CHECK(stim->has_per_cell());
  CHECK(stim->uniform_current(0) == 0.0);
  const std::vector<double>* cur = stim->per_cell_current(0);
  REQUIRE(cur != nullptr);
  CHECK(*cur == std::vector<double>{0, 1, 2});
  CHECK(*stim->per_cell_current(0) == std::vector<double>{0, 1, 2});  // same step again
  CHECK(*stim->per_cell_current(1) == std::vector<double>{10, 11, 12});
  CHECK(*stim->per_cell_current(3) == std::vector<double>{30, 31, 32});  // skipping step 2
  CHECK_THROWS_AS(stim->per_cell_current(2), std::logic_error);          // going back
  CHECK_THROWS_AS(stim->per_cell_current(4), std::out_of_range);         // past the run

  kbrain::StimulusConfig no_file;
  no_file.kind = "cell_file";
  CHECK_THROWS_AS(kbrain::make_stimulus(no_file, 3, 4), kbrain::ConfigError);
}

TEST_CASE("stimulus cell_file errors name file and line") {
  TempDir tmp;
  std::string m;

  // the first line is checked on construction
  const fs::path first = tmp.write("first.txt", "1 2\n1 2 3\n");
  m = runtime_error_of([&] { kbrain::make_stimulus(cell_file(first), 3, 2); });
  CHECK(contains(m, "first.txt:1:"));
  CHECK(contains(m, "line 1 has 2 values, expected 3"));

  const fs::path later = tmp.write("later.txt", "1 2 3\n1 2 3\n1 2 3 4\n");
  auto stim = kbrain::make_stimulus(cell_file(later), 3, 3);
  CHECK(*stim->per_cell_current(1) == std::vector<double>{1, 2, 3});
  m = runtime_error_of([&] { stim->per_cell_current(2); });
  CHECK(contains(m, "later.txt:3:"));
  CHECK(contains(m, "line 3 has 4 values, expected 3"));

  const fs::path token = tmp.write("token.txt", "1 2 3\n1 x2 3\n");
  stim = kbrain::make_stimulus(cell_file(token), 3, 2);
  m = runtime_error_of([&] { stim->per_cell_current(1); });
  CHECK(contains(m, "token.txt:2:"));
  CHECK(contains(m, "\"x2\""));

  const fs::path short_file = tmp.write("short.txt", "1 2 3\n4 5 6\n");
  stim = kbrain::make_stimulus(cell_file(short_file), 3, 5);
  CHECK(*stim->per_cell_current(1) == std::vector<double>{4, 5, 6});
  m = runtime_error_of([&] { stim->per_cell_current(2); });
  CHECK(contains(m, "short.txt:3:"));
  CHECK(contains(m, "file ends after 2 lines, but the run has 5 steps"));

  const fs::path empty = tmp.write("empty.txt", "");
  m = runtime_error_of([&] { kbrain::make_stimulus(cell_file(empty), 3, 5); });
  CHECK(contains(m, "empty.txt:1:"));
  CHECK(contains(m, "file ends after 0 lines"));

  m = runtime_error_of([&] { kbrain::make_stimulus(cell_file(tmp.path / "gone.txt"), 3, 5); });
  CHECK(contains(m, "gone.txt"));
  CHECK(contains(m, "cannot open"));
}

TEST_CASE("checked_stimulus reads a schedule file and checks every line of a cell file before a run") {
  TempDir tmp;
  kbrain::StimulusConfig schedule;
  schedule.kind = "schedule";
  schedule.file = tmp.write("schedule.txt", "0.5\n1.5\n");
  const kbrain::StimulusConfig read = kbrain::checked_stimulus(schedule, 3, 10);
  CHECK(read.schedule == std::vector<double>{0.5, 1.5});
  CHECK(read.file.empty());  // the run does not read the file again
  CHECK(kbrain::make_stimulus(read, 3, 10)->uniform_current(1) == 1.5);
  schedule.file = tmp.write("bad_schedule.txt", "0.5\nnan\n");
  CHECK(contains(runtime_error_of([&] { kbrain::checked_stimulus(schedule, 3, 10); }), "bad_schedule.txt:2:"));

  // a cell file whose first line is fine but which ends before the run's steps: refused while planning
  const kbrain::StimulusConfig cells = cell_file(tmp.write("cells.txt", "1 2 3\n4 5 6\n"));
  CHECK(kbrain::checked_stimulus(cells, 3, 2).file == cells.file);
  std::string m = runtime_error_of([&] { kbrain::checked_stimulus(cells, 3, 5); });
  CHECK(contains(m, "cells.txt:3:"));
  CHECK(contains(m, "file ends after 2 lines, but the run has 5 steps"));
  // a last line without a newline counts
  CHECK_NOTHROW(kbrain::checked_stimulus(cell_file(tmp.write("open.txt", "1 2 3\n4 5 6")), 3, 2));
  m = runtime_error_of([&] { kbrain::checked_stimulus(cell_file(tmp.write("first.txt", "1 2\n")), 3, 1); });
  CHECK(contains(m, "first.txt:1: line 1 has 2 values, expected 3"));
  // a bad line after the first, anywhere among the lines the run reads: refused while planning, naming the line
  m = runtime_error_of([&] { kbrain::checked_stimulus(cell_file(tmp.write("late.txt", "1 2 3\n4 5 6\n7 x 9\n")), 3, 3); });
  CHECK(contains(m, "late.txt:3: value 2: \"x\" is not a finite number"));
  m = runtime_error_of([&] { kbrain::checked_stimulus(cell_file(tmp.write("short.txt", "1 2 3\n4 5 6\n7 8\n")), 3, 3); });
  CHECK(contains(m, "short.txt:3: line 3 has 2 values, expected 3"));
  // lines beyond the run's steps are not read
  CHECK_NOTHROW(kbrain::checked_stimulus(cell_file(tmp.write("tail.txt", "1 2 3\n4 5 6\nrubbish\n")), 3, 2));
}

TEST_SUITE_END();
