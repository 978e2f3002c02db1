// Trace/spike recorders and the run manifest: file contents, binary round trip, truncation, atomic manifest.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/recorders/run_manifest.hpp"
#include "core/recorders/sonata_report.hpp"
#include "core/recorders/trace_recorder.hpp"
#include "tests/test_helpers.hpp"

namespace fs = std::filesystem;
using kbrain::test::TempDir;
using kbrain::test::read_text;
using namespace kbrain;

namespace {



std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

// Deterministic, non-trivial values (not exactly representable in float) for sample s.
std::vector<double> sample_values(std::int64_t s, std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = -65.0 + 0.1 * static_cast<double>(s) + static_cast<double>(i) / 3.0;
  return v;
}

TraceSpec binary_spec(bool single) {
  TraceSpec spec;
  spec.variables = {"V_soma", "V_axon"};
  spec.cells = {3, 7, 11};
  spec.every = 2;
  spec.dt_ms = 0.025;
  spec.csv = false;
  spec.binary = true;
  spec.single_precision = single;
  return spec;
}

std::uint64_t header_bytes(const std::vector<std::string>& vars, std::size_t ncells) {
  std::uint64_t n = 52;
  for (const auto& v : vars) n += 4 + v.size();
  return n + 8 * ncells;
}

}  // namespace

TEST_SUITE_BEGIN("recorders");

TEST_CASE("binary trace round trip, double and float") {
  for (bool single : {false, true}) {
    CAPTURE(single);
    TempDir dir("roundtrip");
    const TraceSpec spec = binary_spec(single);
    const std::size_t n = spec.variables.size() * spec.cells.size();
    {
      TraceRecorder rec(dir.path, spec);
      for (std::int64_t step : {0, 2, 4}) rec.record(step, sample_values(step, n).data());
      rec.close();
    }
    CHECK_FALSE(fs::exists(dir.path / "trace.csv"));
    const std::uint64_t value_bytes = single ? 4 : 8;
    CHECK(fs::file_size(dir.path / "trace.kbt") == header_bytes(spec.variables, 3) + 3 * (8 + n * value_bytes));

    const TraceFile t = read_binary_trace(dir.path / "trace.kbt");
    CHECK(t.variables == spec.variables);
    CHECK(t.cells == spec.cells);
    CHECK(t.every == 2);
    CHECK(t.dt_ms == 0.025);
    REQUIRE(t.steps == std::vector<std::int64_t>{0, 2, 4});
    REQUIRE(t.values.size() == 3 * n);
    for (std::size_t s = 0; s < 3; ++s) {
      const auto expected = sample_values(t.steps[s], n);
      for (std::size_t i = 0; i < n; ++i) {
        const double want = single ? static_cast<double>(static_cast<float>(expected[i])) : expected[i];
        CHECK(t.values[s * n + i] == want);  // exact: the file stores the bits
      }
    }
    if (single) CHECK(t.values[1] != sample_values(0, n)[1]);  // really stored as float32
  }
}

TEST_CASE("binary header layout is little-endian with the documented offsets") {
  TempDir dir("layout");
  {
    TraceRecorder rec(dir.path, binary_spec(false));
    rec.close();
  }
  const std::string bytes = read_text(dir.path / "trace.kbt");
  REQUIRE(bytes.size() >= 52);
  CHECK(bytes.substr(0, 8) == "KBTRACE1");
  CHECK(bytes[8] == 1);    // version
  CHECK(bytes[12] == 8);   // precision code
  CHECK(bytes[16] == 2);   // n_vars
  CHECK(bytes[20] == 3);   // n_cells
  CHECK(bytes[28] == 2);   // every
  CHECK(bytes[44] == 0);   // n_samples after close
  CHECK(bytes.substr(52, 4) == std::string("\x06\0\0\0", 4));
  CHECK(bytes.substr(56, 6) == "V_soma");
}

TEST_CASE("trace.csv header and values") {
  TempDir dir("csv");
  TraceSpec spec;
  spec.variables = {"V", "h"};
  spec.cells = {0, 5};
  spec.every = 1;
  spec.dt_ms = 0.05;
  {
    TraceRecorder rec(dir.path, spec);
    const double a[] = {0.1, -65.25, 1.0 / 3.0, 1e-300};
    const double b[] = {2.0, 3.0, 4.0, 5.0};
    rec.record(0, a);
    rec.record(3, b);
  }  // destructor closes
  CHECK_FALSE(fs::exists(dir.path / "trace.kbt"));
  const auto lines = split(read_text(dir.path / "trace.csv"), '\n');
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "step,time_ms,V_0,V_5,h_0,h_5");
  CHECK(lines[1] == "0,0,0.10000000000000001,-65.25,0.33333333333333331,1e-300");
  const auto f = split(lines[1], ',');
  REQUIRE(f.size() == 6);
  CHECK(std::stod(f[4]) == 1.0 / 3.0);  // round-trips exactly
  CHECK(lines[2] == "3,0.15,2,3,4,5");

  SUBCASE("single precision prints 9 significant digits") {
    TempDir dir32("csv32");
    spec.single_precision = true;
    TraceRecorder rec(dir32.path, spec);
    const double v[] = {0.1, 1.0 / 3.0, -65.0, 0.0};
    rec.record(7, v);
    rec.close();
    const auto rows = split(read_text(dir32.path / "trace.csv"), '\n');
    REQUIRE(rows.size() == 2);
    CHECK(rows[1] == "7,0.35,0.100000001,0.333333343,-65,0");
    CHECK(std::stof(split(rows[1], ',')[3]) == static_cast<float>(1.0 / 3.0));
  }
}

TEST_CASE("a truncated or unfinished binary trace is read up to its last whole sample") {
  TempDir dir("truncated");
  const TraceSpec spec = binary_spec(false);
  const std::size_t n = 6;
  const std::uint64_t header = header_bytes(spec.variables, 3);
  const std::uint64_t sample_bytes = 8 + n * 8;
  const fs::path file = dir.path / "trace.kbt";

  SUBCASE("unfinished: still open, count derived from the size after a flush") {
    TraceRecorder rec(dir.path, spec);
    for (std::int64_t s = 0; s < 4; ++s) rec.record(2 * s, sample_values(2 * s, n).data());
    rec.flush();
    const TraceFile t = read_binary_trace(file);
    CHECK(t.steps == std::vector<std::int64_t>{0, 2, 4, 6});
    CHECK(t.values.back() == sample_values(6, n).back());
  }
  SUBCASE("cut in the middle of the last sample") {
    {
      TraceRecorder rec(dir.path, spec);
      for (std::int64_t s = 0; s < 5; ++s) rec.record(2 * s, sample_values(2 * s, n).data());
    }
    REQUIRE(fs::file_size(file) == header + 5 * sample_bytes);
    fs::resize_file(file, header + 4 * sample_bytes + sample_bytes / 2);
    const TraceFile t = read_binary_trace(file);
    REQUIRE(t.steps == std::vector<std::int64_t>{0, 2, 4, 6});
    REQUIRE(t.values.size() == 4 * n);
    CHECK(t.values[3 * n + 5] == sample_values(6, n)[5]);
  }
  SUBCASE("cut inside the header: error names the file") {
    {
      TraceRecorder rec(dir.path, spec);
      rec.record(0, sample_values(0, n).data());
    }
    const std::string whole = read_text(file);
    // inside the magic, the fixed fields, the variable names and the cell ids
    for (std::uint64_t cut : {std::uint64_t{4}, std::uint64_t{40}, std::uint64_t{60}, header - 3}) {
      CAPTURE(cut);
      std::ofstream(file, std::ios::binary | std::ios::trunc).write(whole.data(), static_cast<std::streamsize>(cut));
      REQUIRE(fs::file_size(file) == cut);
      try {
        read_binary_trace(file);
        FAIL("expected an exception");
      } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()).find(file.string()) != std::string::npos);
        CHECK(std::string(e.what()).find("truncated") != std::string::npos);
      }
    }
  }
  SUBCASE("not a trace file") {
    std::ofstream(file, std::ios::trunc) << "step,time_ms\n0,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19\n";
    CHECK_THROWS_WITH_AS(read_binary_trace(file), doctest::Contains("bad magic"), std::runtime_error);
  }
}

TEST_CASE("sampling every k steps via wants()") {
  TempDir dir("every");
  TraceSpec spec = binary_spec(false);
  spec.every = 3;
  spec.csv = true;
  {
    TraceRecorder rec(dir.path, spec);
    CHECK(rec.wants(0));
    CHECK_FALSE(rec.wants(1));
    CHECK_FALSE(rec.wants(2));
    CHECK(rec.wants(3));
    for (std::int64_t step = 0; step <= 10; ++step)
      if (rec.wants(step)) rec.record(step, sample_values(step, 6).data());
  }
  const TraceFile t = read_binary_trace(dir.path / "trace.kbt");
  CHECK(t.every == 3);
  CHECK(t.steps == std::vector<std::int64_t>{0, 3, 6, 9});
  const auto lines = split(read_text(dir.path / "trace.csv"), '\n');
  REQUIRE(lines.size() == 5);
  CHECK(lines[4].rfind("9,0.225,", 0) == 0);

  spec.every = 0;
  CHECK_THROWS_AS(TraceRecorder(dir.path / "bad", spec), std::invalid_argument);
}

TEST_CASE("recorder errors name the path") {
  TempDir dir("errors");
  const fs::path blocker = dir.path / "blocker";
  std::ofstream(blocker) << "a regular file, not a folder";
  const fs::path target = blocker / "out";
  CHECK_THROWS_WITH_AS(TraceRecorder(target, binary_spec(false)), doctest::Contains(target.string().c_str()),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(SpikeRecorder(target / "spikes.csv"), doctest::Contains(target.string().c_str()),
                       std::runtime_error);
  CHECK_THROWS_AS(read_binary_trace(dir.path / "missing.kbt"), std::runtime_error);
}

TEST_CASE("spikes.csv is streamed in (step, cell) rows") {
  TempDir dir("spikes");
  const fs::path file = dir.path / "run" / "spikes.csv";
  SpikeRecorder rec(file);
  rec.record({{4, 1}, {4, 9}});
  CHECK(read_text(file) == "step,cell\n4,1\n4,9\n");  // flushed before close
  rec.record({});
  rec.record({{10, 0}});
  CHECK(rec.count() == 3);
  rec.close();
  CHECK(read_text(file) == "step,cell\n4,1\n4,9\n10,0\n");
}

TEST_CASE("spikes.kbs: binary (step, cell) pairs with the count written at close, beside or instead of CSV") {
  TempDir dir("spikes_bin");
  const fs::path csv = dir.path / "spikes.csv", bin = dir.path / "spikes.kbs";
  {
    SpikeRecorder rec(csv, bin);
    rec.record({{4, 1}, {4, 9}});
    rec.record({{70000, 2000000000}});
    rec.close();
  }
  const auto back = read_binary_spikes(bin);
  CHECK(back == std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 1}, {4, 9}, {70000, 2000000000}});
  CHECK(read_text(csv) == "step,cell\n4,1\n4,9\n70000,2000000000\n");
  CHECK(fs::file_size(bin) == 16 + 3 * 8);
  const std::string raw = read_text(bin);
  CHECK(raw.substr(0, 8) == "KBSPIKE1");
  CHECK(static_cast<unsigned char>(raw[8]) == 3);  // little-endian count
  CHECK(static_cast<unsigned char>(raw[16]) == 4);  // first step, little-endian int32
  {
    SpikeRecorder only_binary({}, dir.path / "b.kbs");
    only_binary.record({{1, 2}});
    only_binary.close();
  }
  CHECK(read_binary_spikes(dir.path / "b.kbs").size() == 1);
  CHECK(!fs::exists(dir.path / "b.csv"));
  CHECK_THROWS_AS(read_binary_spikes(csv), std::runtime_error);  // not a spike file
}

TEST_CASE("run manifest: atomic rewrite, JSON escaping, non-finite numbers") {
  TempDir dir("manifest");
  const fs::path file = dir.path / "run.json";
  RunManifest m;
  m.fields["experiment"] = "io_mesh";
  m.fields["note"] = "say \"hi\"\nline2\\tab\there\x01";
  m.numbers["simulate_s"] = 1.25;
  m.numbers["steps"] = 2000;
  m.numbers["speedup"] = std::numeric_limits<double>::quiet_NaN();
  m.numbers["rate"] = std::numeric_limits<double>::infinity();
  write_manifest(file, m);
  CHECK_FALSE(fs::exists(dir.path / "run.json.tmp"));
  const std::string first = read_text(file);
  CHECK(first ==
        "{\n"
        "  \"complete\": false,\n"
        "  \"experiment\": \"io_mesh\",\n"
        "  \"note\": \"say \\\"hi\\\"\\nline2\\\\tab\\there\\u0001\",\n"
        "  \"rate\": null,\n"
        "  \"simulate_s\": 1.25,\n"
        "  \"speedup\": null,\n"
        "  \"steps\": 2000\n"
        "}\n");

  m.complete = true;
  write_manifest(file, m);
  const std::string second = read_text(file);
  CHECK(second.find("\"complete\": true") != std::string::npos);
  CHECK(second.find("\"complete\": false") == std::string::npos);
  CHECK_FALSE(fs::exists(dir.path / "run.json.tmp"));
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path)) entries += e.is_regular_file() ? 1 : 0;
  CHECK(entries == 1);

  m.numbers["experiment"] = 1;  // same key as a string field
  CHECK_THROWS_AS(write_manifest(file, m), std::invalid_argument);
  CHECK(read_text(file) == second);  // the previous manifest is untouched
}

// The IO cell's potentials as run_model asks for them: v_axon and v_dend of two cells, "ca" recorded but no potential.
TraceSpec report_spec() {
  TraceSpec spec;
  spec.variables = {"v_axon", "ca", "v_dend"};
  spec.cells = {7, 2};
  spec.every = 3;
  spec.dt_ms = 0.05;
  spec.csv = false;
  spec.report_slots = {0, 2};
  spec.report_elements = {2, 0};  // the axon is compartment 2, the dendrite 0
  spec.report_population = "io";
  return spec;
}

TEST_CASE("voltage.h5: the SONATA report of the recorded potentials, node-major, at the samples' times") {
  if (!sonata_spikes_available()) {
    MESSAGE("built without libhdf5: no SONATA report to check");
    return;
  }
  const TempDir dir("sonata_report");
  const TraceSpec spec = report_spec();
  const fs::path file = dir.path / "voltage.h5";
  const fs::path victim = dir.path / "victim.txt";
  std::ofstream(victim) << "keep me\n";
  fs::create_symlink(victim, file);  // a link at the name is replaced, not followed
  {
    TraceRecorder rec(dir.path, spec);
    for (std::int64_t s = 1; s <= 5; ++s) rec.record(3 * s, sample_values(s, 6).data());
    rec.flush();
    // Before close: the file describes the frames flushed so far (what a run cut short leaves).
    const SonataReport partial = read_sonata_report(file, "io");
    CHECK(partial.frames == 5);
    CHECK(partial.time[1] == doctest::Approx(0.15 + 5 * 0.15));
    rec.record(18, sample_values(6, 6).data());
    rec.close();
  }
  CHECK(read_text(victim) == "keep me\n");
  CHECK(fs::is_regular_file(fs::symlink_status(file)));
  CHECK_FALSE(fs::exists(dir.path / "trace.csv"));

  const SonataReport r = read_sonata_report(file, "io");
  CHECK(r.units == "mV");
  CHECK(r.time_units == "ms");
  CHECK(r.node_ids == std::vector<std::uint64_t>{7, 2});
  CHECK(r.index_pointers == std::vector<std::uint64_t>{0, 2, 4});
  CHECK(r.element_ids == std::vector<std::uint32_t>{2, 0, 2, 0});
  CHECK(r.time[0] == doctest::Approx(0.15));  // the first sample, step 3
  CHECK(r.time[2] == doctest::Approx(0.15));  // every 3 steps of 0.05 ms
  CHECK(r.time[1] == doctest::Approx(0.15 + 6 * 0.15));  // open on the right: start + frames * dt
  REQUIRE(r.frames == 6);
  REQUIRE(r.values == 4);
  for (std::int64_t s = 1; s <= 6; ++s) {
    const auto v = sample_values(s, 6);  // variable-major: v_axon of cells 7, 2; ca; v_dend of cells 7, 2
    const float* frame = &r.data[static_cast<std::size_t>(s - 1) * 4];
    CAPTURE(s);
    CHECK(frame[0] == static_cast<float>(v[0]));  // cell 7: v_axon, v_dend
    CHECK(frame[1] == static_cast<float>(v[4]));
    CHECK(frame[2] == static_cast<float>(v[1]));  // cell 2: v_axon, v_dend
    CHECK(frame[3] == static_cast<float>(v[5]));
  }
}

TEST_CASE("voltage.h5 refuses samples that are not evenly spaced, which its one interval cannot describe") {
  if (!sonata_spikes_available()) return;
  const TempDir dir("sonata_report_uneven");
  TraceRecorder rec(dir.path, report_spec());
  rec.record(3, sample_values(1, 6).data());
  rec.record(6, sample_values(2, 6).data());
  CHECK_THROWS_WITH_AS(rec.record(10, sample_values(3, 6).data()), doctest::Contains("evenly spaced"),
                       std::runtime_error);
}

TEST_CASE("run.json's file list tells the SONATA spike file from the SONATA report") {
  const TempDir dir("describe_files");
  for (const char* name : {"spikes.h5", "voltage.h5", "trace.csv"}) std::ofstream(dir.path / name) << "x";
  CHECK(describe_output_files(dir.path) ==
        "spikes.h5: SONATA spikes (HDF5); trace.csv: CSV; voltage.h5: SONATA report (HDF5)");
}

TEST_SUITE_END();
