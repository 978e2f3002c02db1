// Experiment-file loader: the shipped experiments load, defaults, and every class of malformed input gives its own
// ConfigError naming the file, line, key path and what is allowed (docs/experiment-schema.md).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/config/experiment_config.hpp"
#include "models/registry.hpp"

#ifndef KBRAIN_SOURCE_DIR
#define KBRAIN_SOURCE_DIR "."
#endif

using kbrain::ConfigError;
using kbrain::ExperimentConfig;
using kbrain::parse_model_experiment;
namespace fs = std::filesystem;

namespace {

// A valid experiment: line 1 name, [simulation] at 2..4, [network] at 5..8.
const std::string kHeader = "name = \"t\"\n[simulation]\ndt = 0.05\nsteps = 10\n";
const std::string kMesh = "[network]\ntype = \"mesh2d\"\nrows = 4\ncols = 5\n";

// The message of the ConfigError that parsing `text` must throw ("" and a failed check if none is thrown).
std::string error_of(const std::string& text, const fs::path& source = "test.toml") {
  try {
    parse_model_experiment(text, source);
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL_CHECK("expected a ConfigError for:\n" << text);
  return "";
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Evaluates `message` once (INFO is lazy and would re-run error_of() while reporting).
#define CHECK_HAS(message, needle)                  \
  do {                                              \
    const std::string check_has_text = (message);   \
    INFO("message: " << check_has_text);            \
    CHECK(contains(check_has_text, (needle)));      \
  } while (0)

// A fresh, empty scratch directory under the system temp directory.
fs::path scratch_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("kbrain_test_config_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

ExperimentConfig load_shipped(const std::string& name) {
  const fs::path file = fs::path(KBRAIN_SOURCE_DIR) / "experiments" / name;
  INFO("loading " << file.string());
  try {
    return kbrain::load_model_experiment(file);
  } catch (const ConfigError& e) {
    FAIL(e.what());
  }
  return {};
}

}  // namespace

// ctest runs this file as `kbrain_tests --test-suite=config`.
TEST_SUITE_BEGIN("config");

TEST_CASE("config: shipped io_all2all10.toml loads as the reference case") {
  const ExperimentConfig cfg = load_shipped("io_all2all10.toml");
  CHECK(cfg.name == "io_all2all10");
  CHECK(cfg.model == "io");
  CHECK(cfg.dt == 0.05);
  CHECK(cfg.steps == 40000);
  CHECK(cfg.precision == kbrain::Precision::Double);
  CHECK(cfg.network.type == "matrix_file");
  CHECK(cfg.network.cells == 10);
  CHECK(cfg.network.file.is_absolute());
  CHECK(cfg.network.file.filename() == "conductance_matrix.txt");
  CHECK(fs::exists(cfg.network.file));
  CHECK(cfg.g_cal.kind == "file");
  CHECK(fs::exists(cfg.g_cal.file));
  CHECK(cfg.stimulus.kind == "reference_pulse");
  CHECK(cfg.stimulus.amplitude == 6.0);
  CHECK(cfg.stimulus.start == 20000);
  CHECK(cfg.stimulus.stop == 20499);
  CHECK(cfg.record.all_cells);
  CHECK(cfg.record.variables == std::vector<std::string>{"v_axon"});
  CHECK(cfg.record.every == 1);
  CHECK(cfg.record.csv);
  CHECK(cfg.record.spikes);
}

TEST_CASE("config: shipped io_mesh_sweep.toml and io_du_nguyen_mesh.toml load") {
  const ExperimentConfig sweep = load_shipped("io_mesh_sweep.toml");
  CHECK(sweep.network.type == "mesh2d");
  CHECK(sweep.network.cells == sweep.network.rows * sweep.network.cols);
  CHECK(sweep.g_cal.kind == "uniform");
  CHECK(sweep.g_cal.seed == 42);
  CHECK(sweep.steps == 2000);
  CHECK(sweep.compare.sizes == std::vector<std::int64_t>{64, 128, 256, 512, 1024});
  CHECK(sweep.compare.precisions == std::vector<std::string>{"float", "double"});
  CHECK(sweep.compare.max_slow_cell_steps == 10'000'000);
  CHECK(sweep.record.every == 10);
  CHECK_FALSE(sweep.record.all_cells);
  CHECK(sweep.record.cells.size() == 4);

  const ExperimentConfig du = load_shipped("io_du_nguyen_mesh.toml");
  CHECK(du.steps == 120000);
  CHECK(du.precision == kbrain::Precision::Float);
  CHECK(du.g_cal.kind == "constant");
  CHECK(du.g_cal.value == 0.68);
  CHECK(du.compare.sizes == std::vector<std::int64_t>{256, 512, 1024, 2048});
  CHECK(du.record.every == 100);
  CHECK_FALSE(du.description.empty());
}

TEST_CASE("config: every experiments/*.toml loads") {
  int loaded = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(KBRAIN_SOURCE_DIR) / "experiments")) {
    if (entry.path().extension() != ".toml") continue;
    const ExperimentConfig cfg = load_shipped(entry.path().filename().string());
    CHECK(cfg.name == entry.path().stem().string());  // convention: name = file stem
    ++loaded;
  }
  CHECK(loaded >= 3);
}

TEST_CASE("config: defaults of a minimal file") {
  const ExperimentConfig cfg = parse_model_experiment(kHeader + kMesh, "test.toml");
  CHECK(cfg.name == "t");
  CHECK(cfg.steps == 10);
  CHECK(cfg.dt == 0.05);
  CHECK(cfg.precision == kbrain::Precision::Double);
  CHECK(cfg.backend.empty());
  CHECK(cfg.gate_step == "reference");
  CHECK(cfg.network.rows == 4);
  CHECK(cfg.network.cols == 5);
  CHECK(cfg.network.cells == 20);
  CHECK(cfg.network.conductance == 0.04);
  CHECK(cfg.g_cal.kind == "constant");
  CHECK(cfg.stimulus.kind == "reference_pulse");
  CHECK(cfg.record.cells.empty());
  CHECK_FALSE(cfg.record.all_cells);
  CHECK(cfg.compare.precisions == std::vector<std::string>{"float", "double"});
}

TEST_CASE("config: [model.parameters] overrides keep file order; bad names are rejected") {
  const ExperimentConfig cfg =
      parse_model_experiment(kHeader + kMesh + "[model.parameters]\ng_h = 0.12\ng_ld = 0.01532\nc_m = 1\n", "test.toml");
  REQUIRE(cfg.parameter_overrides.size() == 3);
  CHECK(cfg.parameter_overrides[0].first == "g_h");
  CHECK(cfg.parameter_overrides[1].first == "g_ld");
  CHECK(cfg.parameter_overrides[2].first == "c_m");
  CHECK(cfg.parameter_overrides[2].second == 1.0);

  const std::string msg = error_of(kHeader + kMesh + "[model.parameters]\ng_hh = 0.12\n");
  CHECK_HAS(msg, "test.toml:10: model.parameters.g_hh");
  CHECK_HAS(msg, "g_na_s");
  CHECK_HAS(error_of(kHeader + kMesh + "[model.parameters]\ng_h = \"x\"\n"), "model.parameters.g_h must be a number");
}

TEST_CASE("config: unknown keys are named with line, table and allowed keys") {
  const std::string msg = error_of(kHeader + "[network]\ntype = \"mesh2d\"\nrows = 4\ncols = 5\nrowz = 3\n");
  CHECK_HAS(msg, "test.toml:9: unknown key network.rowz");
  CHECK_HAS(msg, "did you mean \"rows\"");
  CHECK_HAS(msg, "type, rows, cols, conductance");

  // A key valid for another network type is still rejected, with the type named.
  const std::string other = error_of(kHeader + "[network]\ntype = \"all_to_all\"\ncells = 4\nrows = 3\n");
  CHECK_HAS(other, "unknown key network.rows");
  CHECK_HAS(other, "with network.type = \"all_to_all\"");

  CHECK_HAS(error_of(kHeader + kMesh + "colour = \"red\"\n"), "unknown key network.colour");
  CHECK_HAS(error_of("extra = 1\n" + kHeader + kMesh), "test.toml:1: unknown key extra");
  CHECK_HAS(error_of(kHeader + kMesh + "[record]\nevery = 2\nspikez = true\n"), "unknown key record.spikez");
}

TEST_CASE("config: wrong value types") {
  const std::string msg = error_of("name = \"t\"\n[simulation]\nsteps = \"100\"\n" + kMesh);
  CHECK_HAS(msg, "test.toml:3: simulation.steps must be an integer (got the string \"100\")");
  CHECK_HAS(error_of("name = \"t\"\n[simulation]\nsteps = 10.0\n" + kMesh), "simulation.steps must be an integer");
  CHECK_HAS(error_of(kHeader + kMesh + "[record]\ncsv = 1\n"), "record.csv must be a boolean");
  CHECK_HAS(error_of(kHeader + kMesh + "[record]\ncells = [0, \"1\"]\n"), "record.cells[1] must be an integer");
  CHECK_HAS(error_of("name = \"t\"\nsimulation = 5\n" + kMesh), "simulation must be a table");
}

TEST_CASE("config: sizes must be positive") {
  const std::string msg = error_of(kHeader + "[network]\ntype = \"mesh2d\"\nrows = -3\ncols = 5\n");
  CHECK_HAS(msg, "test.toml:7: network.rows must be an integer >= 1 (got -3)");
  CHECK_HAS(error_of(kHeader + "[network]\ntype = \"all_to_all\"\ncells = 0\n"), "network.cells must be an integer >= 1");
  CHECK_HAS(error_of(kHeader + kMesh + "[record]\nevery = 0\n"), "record.every must be an integer >= 1 (got 0)");
  CHECK_HAS(error_of(kHeader + kMesh + "[compare]\nsizes = [64, -1]\n"), "compare.sizes[1] = -1 is out of range");
  CHECK_HAS(error_of(kHeader + kMesh + "[compare]\nprobe_cells = 0\n"), "compare.probe_cells must be an integer >= 1");
  CHECK_HAS(error_of(kHeader + "[network]\ntype = \"mesh2d\"\nrows = 4\ncols = 5\nconductance = -0.1\n"),
            "network.conductance must be a number >= 0 (got -0.1)");
}

TEST_CASE("config: dt must be a positive finite number") {
  const std::string zero = error_of("name = \"t\"\n[simulation]\ndt = 0\nsteps = 10\n" + kMesh);
  CHECK_HAS(zero, "test.toml:3: simulation.dt must be a number > 0 (got 0)");
  CHECK_HAS(error_of("name = \"t\"\n[simulation]\ndt = -0.05\nsteps = 10\n" + kMesh), "simulation.dt must be a number > 0");
  CHECK_HAS(error_of("name = \"t\"\n[simulation]\ndt = nan\nsteps = 10\n" + kMesh), "simulation.dt must be a finite number");
  CHECK(parse_model_experiment("name = \"t\"\n[simulation]\ndt = 1\nsteps = 10\n" + kMesh, "t.toml").dt == 1.0);
}

TEST_CASE("config: files resolve against the experiment file's directory; a missing one is named") {
  const fs::path dir = scratch_dir("files");
  std::ofstream(dir / "matrix.txt") << "0 0.04\n0.04 0\n";
  const fs::path source = dir / "exp.toml";
  const std::string network = "[network]\ntype = \"matrix_file\"\nfile = \"matrix.txt\"\n";
  const ExperimentConfig cfg = parse_model_experiment(kHeader + network, source);
  CHECK(cfg.network.file == fs::absolute(dir / "matrix.txt").lexically_normal());
  CHECK(cfg.network.cells == 0);

  const std::string msg = error_of(kHeader + "[network]\ntype = \"edge_list\"\nfile = \"missing.txt\"\n", source);
  CHECK_HAS(msg, source.string() + ":7: network.file");
  CHECK_HAS(msg, "\"missing.txt\", which does not exist");
  CHECK_HAS(msg, (fs::absolute(dir) / "missing.txt").lexically_normal().string());

  CHECK_HAS(error_of(kHeader + network + "[cells.g_cal]\nkind = \"file\"\nfile = \"g.txt\"\n", source),
            "cells.g_cal.file names \"g.txt\", which does not exist");
  CHECK_HAS(error_of(kHeader + network + "[stimulus]\nkind = \"cell_file\"\nfile = \"i.txt\"\n", source),
            "stimulus.file names \"i.txt\"");
  CHECK_HAS(error_of(kHeader + "[network]\ntype = \"matrix_file\"\n", source), "network.file is required");

  CHECK_NOTHROW(parse_model_experiment(kHeader + kMesh, dir / "nope.toml"));  // the source name only locates files
  try {
    kbrain::load_model_experiment(dir / "nope.toml");
    FAIL_CHECK("missing experiment file accepted");
  } catch (const ConfigError& e) {
    CHECK_HAS(std::string(e.what()), "nope.toml: experiment file not found");
  }
  fs::remove_all(dir);
}

TEST_CASE("config: enumerations list what is allowed") {
  const std::string msg = error_of(kHeader + "[network]\ntype = \"ring\"\n");
  CHECK_HAS(msg, "test.toml:6: network.type must be one of mesh2d, all_to_all, matrix_file, edge_list, uniform, gaussian3d (got \"ring\")");
  CHECK_HAS(error_of("name = \"t\"\n[simulation]\nsteps = 1\nprecision = \"half\"\n" + kMesh),
            "simulation.precision must be one of float, double");
  CHECK_HAS(error_of("name = \"t\"\n[simulation]\nsteps = 1\nbackend = \"sycl\"\n" + kMesh),
            "simulation.backend must be one of serial, openmp, cuda");
  CHECK_HAS(error_of(kHeader + kMesh + "[model]\nkind = \"adex\"\n"), "model.kind must be one of io");
  CHECK_HAS(error_of(kHeader + kMesh + "[model]\ngate_step = \"fixed\"\n"), "model.gate_step must be one of reference, corrected");
  CHECK_HAS(error_of(kHeader + kMesh + "[record]\nvariables = [\"v_axon\", \"vax\"]\n"),
            "record.variables[1] must be one of v_dend, r, s, q, ca, i_cah, v_soma");
  CHECK_HAS(error_of(kHeader + kMesh + "[compare]\nbackends = [\"hip\"]\n"), "compare.backends[0] must be one of serial, openmp, cuda");
  CHECK_HAS(error_of(kHeader + kMesh + "[compare]\nprecisions = [\"float\", \"float\"]\n"), "compare.precisions[1] repeats");
  CHECK_HAS(error_of(kHeader + kMesh + "[stimulus]\nkind = \"noise\"\n"), "stimulus.kind must be one of reference_pulse");
  CHECK_THROWS_AS(kbrain::parse_precision("half"), ConfigError);
  CHECK(kbrain::parse_precision("float") == kbrain::Precision::Float);
  CHECK(std::string(kbrain::to_string(kbrain::Precision::Double)) == "double");
}

TEST_CASE("config: record.cells must lie inside the configured network") {
  const std::string msg = error_of(kHeader + kMesh + "[record]\ncells = [0, 19, 20]\n");
  CHECK_HAS(msg, "test.toml:10: record.cells[2] = 20 is out of range: cell indices must be in [0, 20)");
  CHECK_HAS(error_of(kHeader + kMesh + "[record]\ncells = [-1]\n"), "record.cells[0] = -1 is out of range");
  CHECK_HAS(error_of(kHeader + kMesh + "[record]\ncells = \"some\"\n"), "record.cells must be \"all\" or an array");
  CHECK_HAS(error_of(kHeader + kMesh + "[record]\ncells = [3, 3]\n"), "record.cells[1] repeats");
  const ExperimentConfig cfg = parse_model_experiment(kHeader + kMesh + "[record]\ncells = [0, 19]\n", "t.toml");
  CHECK(cfg.record.cells == std::vector<std::int64_t>{0, 19});
  CHECK(parse_model_experiment(kHeader + kMesh + "[record]\ncells = \"all\"\n", "t.toml").record.all_cells);
}

TEST_CASE("config: ranges across keys (stimulus window, g_CaL interval)") {
  CHECK_HAS(error_of(kHeader + kMesh + "[stimulus]\nkind = \"reference_pulse\"\nstart = 100\nstop = 50\n"),
            "stimulus.stop must be >= stimulus.start (got start = 100, stop = 50)");
  CHECK_HAS(error_of(kHeader + kMesh + "[stimulus]\nkind = \"reference_pulse\"\nstart = -1\n"),
            "stimulus.start must be an integer >= 0");
  CHECK_HAS(error_of(kHeader + kMesh + "[cells.g_cal]\nkind = \"uniform\"\nlow = 0.8\nhigh = 0.6\n"),
            "cells.g_cal.high must be greater than cells.g_cal.low");
  CHECK_HAS(error_of(kHeader + kMesh + "[cells.g_cal]\nkind = \"uniform\"\nlow = -0.1\nhigh = 0.6\n"),
            "cells.g_cal.low must be a number >= 0");
  CHECK_HAS(error_of(kHeader + kMesh + "[stimulus]\nkind = \"schedule\"\n"), "needs stimulus.values");
  const ExperimentConfig cfg = parse_model_experiment(kHeader + kMesh + "[stimulus]\nkind = \"schedule\"\nvalues = [0, 1.5]\n", "t.toml");
  CHECK(cfg.stimulus.schedule == std::vector<double>{0.0, 1.5});
}

TEST_CASE("config: TOML syntax errors give file:line:column") {
  const std::string msg = error_of("name = \"t\"\n[simulation]\nsteps = = 10\n");
  CHECK_HAS(msg, "test.toml:3:");
  CHECK_HAS(msg, "TOML syntax error");
  CHECK_HAS(error_of("name = \"t\"\n[simulation\nsteps = 10\n"), "test.toml:2:");
}

TEST_CASE("config: required keys") {
  const std::string msg = error_of("name = \"t\"\n[simulation]\ndt = 0.05\n" + kMesh);
  CHECK_HAS(msg, "test.toml:2: simulation.steps is required (an integer >= 1 in [simulation])");
  CHECK_HAS(error_of("name = \"t\"\n[simulation]\nstep = 10\n" + kMesh), "found \"step\" at test.toml:3, a misspelling?");
  CHECK_HAS(error_of(kMesh), "name is required");
  CHECK_HAS(error_of("name = \"a b\"\n[simulation]\nsteps = 1\n" + kMesh), "name must be a plain file name");
  CHECK_HAS(error_of("name = \"..\"\n[simulation]\nsteps = 1\n" + kMesh), "not dots alone");
  CHECK_HAS(error_of("name = \".\"\n[simulation]\nsteps = 1\n" + kMesh), "not dots alone");
  CHECK_HAS(error_of(kHeader), "network is required");
  CHECK_HAS(error_of(kHeader + "[network]\nrows = 4\n"), "network.type is required (one of mesh2d, all_to_all");
}

TEST_SUITE_END();
