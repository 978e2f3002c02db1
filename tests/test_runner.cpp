// The runner end to end: `kbrain run` writes complete outputs; bad input fails before any output exists;
// `kbrain compare` produces rows for every backend with agreement columns.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "backends/registry.hpp"
#include "core/recorders/npy_file.hpp"
#include "core/recorders/sonata_report.hpp"
#include "core/recorders/trace_recorder.hpp"
#include "experiments/program/commands.hpp"
#include "tests/io_test_support.hpp"
#include "tests/test_helpers.hpp"

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using kbrain::test::count_lines;

fs::path fresh_dir(const std::string& name) {
  auto d = fs::temp_directory_path() / ("kbrain_test_runner_" + name);
  fs::remove_all(d);
  return d;
}

}  // namespace

TEST_SUITE("runner") {
  TEST_CASE("kbrain run writes trace, spikes and a complete manifest on every backend") {
    for (const auto& backend : kbrain::backend_names()) {
      CAPTURE(backend);
      const auto out = fresh_dir("run_" + backend);
      kbrain::RunOptions o;
      o.experiment = std::string(KBRAIN_SOURCE_DIR) + "/experiments/io_all2all10.toml";
      o.backend = backend;
      o.steps = 200;
      o.out_dir = out.string();
      CHECK(kbrain::cmd_run(o) == 0);
      const std::string manifest = slurp(out / "run.json");
      CHECK(manifest.find("\"complete\": true") != std::string::npos);
      CHECK(manifest.find("\"backend\": \"" + backend + "\"") != std::string::npos);
      CHECK(count_lines(out / "trace.csv") == 201);  // header + 200 samples
      CHECK(fs::exists(out / "spikes.csv"));
      fs::remove_all(out);
    }
  }

  TEST_CASE("links planted in the output folder are replaced, not followed") {
    const kbrain::test::TempDir tmp("links");
    const fs::path out = tmp.path / "out", victim = tmp.path / "victim.txt";
    std::ofstream(victim) << "keep me\n";
    kbrain::RunOptions o;
    o.experiment = std::string(KBRAIN_SOURCE_DIR) + "/experiments/io_all2all10.toml";
    o.backend = "serial";
    o.steps = 50;
    o.out_dir = out.string();
    o.no_plots = true;
    REQUIRE(kbrain::cmd_run(o) == 0);  // an earlier result, into which links are planted
    for (const char* name : {"trace.csv", "spikes.csv", "run.json.tmp"}) {
      fs::remove(out / name);
      fs::create_symlink(victim, out / name);
    }
    CHECK(kbrain::cmd_run(o) == 0);
    CHECK(slurp(victim) == "keep me\n");
    for (const char* name : {"trace.csv", "spikes.csv", "run.json"}) {
      CAPTURE(name);
      CHECK(fs::is_regular_file(fs::symlink_status(out / name)));
    }
    CHECK_FALSE(fs::exists(fs::symlink_status(out / "run.json.tmp")));
    CHECK(count_lines(out / "trace.csv") == 51);
    CHECK(slurp(out / "run.json").find("\"complete\": true") != std::string::npos);
    // A folder that is not a run's own (links and no run.json) is refused, and nothing it links to is touched.
    const fs::path foreign = tmp.path / "foreign";
    fs::create_directories(foreign);
    fs::create_symlink(victim, foreign / "trace.csv");
    o.out_dir = foreign.string();
    CHECK_THROWS_WITH_AS(kbrain::cmd_run(o), doctest::Contains("not a kbrain output folder"), kbrain::ConfigError);
    CHECK(slurp(victim) == "keep me\n");
  }

  TEST_CASE("record.binary writes spikes.kbs with exactly the events of spikes.csv") {
    const auto dir = fresh_dir("kbs");
    fs::create_directories(dir);
    const fs::path toml = dir / "cuba_small.toml";
    std::ofstream(toml) << "name = \"cuba_small\"\n[model]\nkind = \"lif\"\nparameter_set = \"cuba\"\n"
                           "[simulation]\nsteps = 300\n[network]\nneurons = 400\n"
                           "[record]\nspikes = true\ncsv = true\nbinary = true\n";
    kbrain::RunOptions o;
    o.experiment = toml.string();
    o.backend = "serial";
    o.out_dir = (dir / "out").string();
    REQUIRE(kbrain::cmd_run(o) == 0);
    const auto events = kbrain::read_binary_spikes(dir / "out" / "spikes.kbs");
    std::ifstream csv(dir / "out" / "spikes.csv");
    std::string line;
    std::getline(csv, line);
    CHECK(line == "step,cell");
    std::vector<std::pair<std::int64_t, std::int64_t>> rows;
    while (std::getline(csv, line)) {
      const auto comma = line.find(',');
      rows.emplace_back(std::stoll(line.substr(0, comma)), std::stoll(line.substr(comma + 1)));
    }
    CHECK(rows.size() > 100);
    CHECK(events == rows);
    fs::remove_all(dir);
  }

  TEST_CASE("record.synapses writes the run's network as .npy arrays: run.json's count, plausible degrees") {
    const kbrain::test::TempDir tmp("npy");
    const fs::path toml = tmp.path / "coba_small.toml", out = tmp.path / "out";
    std::ofstream(toml) << "name = \"coba_small\"\n[model]\nkind = \"lif\"\nparameter_set = \"coba\"\n"
                           "[simulation]\nsteps = 50\n[network]\nneurons = 1000\nexcitatory = 800\n"
                           "probability = 0.02\n[record]\nsynapses = true\n";
    kbrain::RunOptions o;
    o.experiment = toml.string();
    o.backend = "serial";
    o.out_dir = out.string();
    o.no_plots = true;
    REQUIRE(kbrain::cmd_run(o) == 0);
    const std::string manifest = slurp(out / "run.json");
    const auto key = manifest.find("\"synapses\": ");
    REQUIRE(key != std::string::npos);
    const std::int64_t connections = std::stoll(manifest.substr(key + 12));
    CHECK(manifest.find("synapses_targets.npy: NumPy array") != std::string::npos);
    auto load_i32 = [&](const char* name) {
      const kbrain::NpyHeader h = kbrain::read_npy_header(out / name);
      CHECK(h.descr == "<i4");
      std::vector<std::int32_t> v(static_cast<std::size_t>(h.count));
      std::ifstream in(out / name, std::ios::binary);
      in.seekg(h.data_offset);
      in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
      CHECK(in.good());
      return v;
    };
    const auto sources = load_i32("synapses_sources.npy"), targets = load_i32("synapses_targets.npy");
    const auto delays = load_i32("synapses_delays.npy");
    CHECK(static_cast<std::int64_t>(sources.size()) == connections);
    CHECK(targets.size() == sources.size());
    CHECK(delays.size() == sources.size());
    CHECK(kbrain::read_npy_header(out / "synapses_weights.npy").descr == "<f8");
    CHECK(kbrain::read_npy_header(out / "synapses_weights.npy").count == connections);
    CHECK(kbrain::read_npy_header(out / "synapses_receptors.npy").descr == "|u1");
    CHECK(kbrain::read_npy_header(out / "synapses_receptors.npy").count == connections);
    // p = 0.02 over 999 candidates: mean degree 19.98; each neuron's in- and out-degree is Binomial(999, 0.02)
    // (sd 4.4), so all lie within [0, 60] and the means within 0.5 of 19.98.
    std::vector<int> in(1000, 0), outdeg(1000, 0);
    bool self = false, sorted = true;
    for (std::size_t k = 0; k < sources.size(); ++k) {
      ++outdeg[static_cast<std::size_t>(sources[k])];
      ++in[static_cast<std::size_t>(targets[k])];
      self = self || sources[k] == targets[k];
      sorted = sorted && (k == 0 || sources[k - 1] <= sources[k]);
    }
    CHECK_FALSE(self);
    CHECK(sorted);
    CHECK(std::abs(double(connections) / 1000.0 - 19.98) < 0.5);
    CHECK(*std::max_element(in.begin(), in.end()) < 60);
    CHECK(*std::max_element(outdeg.begin(), outdeg.end()) < 60);
    CHECK(std::all_of(delays.begin(), delays.end(), [](std::int32_t d) { return d == 0; }));
  }

  TEST_CASE("record.sonata writes voltage.h5 with the potentials of trace.kbt on every backend") {
    if (!kbrain::sonata_spikes_available()) {
      MESSAGE("built without libhdf5: no SONATA report to check");
      return;
    }
    const auto dir = fresh_dir("voltage");
    fs::create_directories(dir);
    const fs::path toml = dir / "cuba_voltage.toml";
    std::ofstream(toml) << "name = \"cuba_voltage\"\n[model]\nkind = \"lif\"\nparameter_set = \"cuba\"\n"
                           "[simulation]\nsteps = 300\n[network]\nneurons = 400\n"
                           "[record]\nspikes = true\ncsv = false\nbinary = true\nsonata = true\n"
                           "variables = [\"ge\", \"v\"]\nneurons = [5, 2, 399]\nevery = 4\n";
    for (const auto& backend : kbrain::backend_names()) {
      CAPTURE(backend);
      kbrain::RunOptions o;
      o.experiment = toml.string();
      o.backend = backend;
      o.out_dir = (dir / backend).string();
      o.no_plots = true;
      REQUIRE(kbrain::cmd_run(o) == 0);
      const auto trace = kbrain::read_binary_trace(dir / backend / "trace.kbt");
      const auto report = kbrain::read_sonata_report(dir / backend / "voltage.h5", "cuba_voltage");
      CHECK(report.node_ids == std::vector<std::uint64_t>{5, 2, 399});
      CHECK(report.index_pointers == std::vector<std::uint64_t>{0, 1, 2, 3});
      CHECK(report.element_ids == std::vector<std::uint32_t>{0, 0, 0});  // one compartment
      REQUIRE(report.frames == trace.steps.size());
      REQUIRE(report.values == 3);
      CHECK(report.frames == 75);
      CHECK(report.time[0] == doctest::Approx(trace.steps[0] * trace.dt_ms));
      CHECK(report.time[2] == doctest::Approx(4 * trace.dt_ms));
      CHECK(report.time[1] == doctest::Approx(report.time[0] + 75 * report.time[2]));
      bool moved = false;
      for (std::size_t s = 0; s < trace.steps.size(); ++s)
        for (std::size_t c = 0; c < 3; ++c) {  // trace values: sample-major, then ge of the 3 cells, then v
          const double v = trace.values[s * 6 + 3 + c];
          CHECK(report.data[s * 3 + c] == static_cast<float>(v));
          moved = moved || report.data[s * 3 + c] != report.data[c];
        }
      CHECK(moved);  // the potentials change, so a report of one frame repeated would fail
      CHECK(slurp(dir / backend / "run.json").find("voltage.h5: SONATA report (HDF5)") != std::string::npos);
    }
    fs::remove_all(dir);
  }

  TEST_CASE("bad input is reported before any output is written") {
    const auto out = fresh_dir("bad");
    kbrain::RunOptions o;
    o.experiment = (fs::temp_directory_path() / "kbrain_no_such_experiment.toml").string();
    o.out_dir = out.string();
    CHECK_THROWS_AS(kbrain::cmd_run(o), kbrain::ConfigError);
    CHECK_FALSE(fs::exists(out));

    // A valid file whose matrix has the wrong size for network.cells.
    const auto dir = fresh_dir("bad_matrix_src");
    fs::create_directories(dir);
    {
      std::ofstream m(dir / "m.txt");
      m << "0 0.04\n0.04 0\n";
      std::ofstream t(dir / "exp.toml");
      t << "name = \"bad\"\n[simulation]\ndt = 0.05\nsteps = 10\n[network]\ntype = \"matrix_file\"\nfile = "
           "\"m.txt\"\ncells = 3\n";
    }
    o.experiment = (dir / "exp.toml").string();
    CHECK_THROWS_AS(kbrain::cmd_run(o), kbrain::ConfigError);
    CHECK_FALSE(fs::exists(out));
    fs::remove_all(dir);

    // The tiled gap kernel on a network without a lattice, and any gap kernel on a spiking model.
    o.experiment = std::string(KBRAIN_SOURCE_DIR) + "/experiments/io_mesh_sweep.toml";
    o.gap_kernel = "tiled";
    CHECK_THROWS_WITH_AS(kbrain::cmd_run(o), doctest::Contains("gaussian3d"), kbrain::ConfigError);
    CHECK_FALSE(fs::exists(out));
    o.experiment = std::string(KBRAIN_SOURCE_DIR) + "/experiments/coba.toml";
    o.gap_kernel = "fused";
    CHECK_THROWS_WITH_AS(kbrain::cmd_run(o), doctest::Contains("gap_kernel setting"), kbrain::ConfigError);
    CHECK_FALSE(fs::exists(out));
  }

  TEST_CASE("kbrain compare: one row per backend and precision, agreement against serial double") {
    const auto out = fresh_dir("compare");
    kbrain::CompareOptions o;
    o.experiment = std::string(KBRAIN_SOURCE_DIR) + "/experiments/io_mesh_sweep.toml";
    o.sizes = {8, 12};
    o.steps = 300;
    o.out_dir = out.string();
    CHECK(kbrain::cmd_compare(o) == 0);
    const std::string csv = slurp(out / "compare.csv");
    const auto rows = count_lines(out / "compare.csv") - 1;
    CHECK(rows == 2 * 2 * kbrain::backend_names().size());
    CHECK(fs::exists(out / "compare.md"));
    CHECK(slurp(out / "compare.json").find("\"rows\"") != std::string::npos);
    fs::remove_all(out);
  }
}
