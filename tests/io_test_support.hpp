#pragma once
// Shared helpers for IO model tests: the 10-cell InfOli reference case and small synthetic networks.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#include <algorithm>
#include <cmath>

#include "core/config/experiment_config.hpp"
#include "models/olive/cell/io_state.hpp"

#ifndef KBRAIN_TEST_DATA_DIR
#define KBRAIN_TEST_DATA_DIR "tests/data"
#endif
#ifndef KBRAIN_SOURCE_DIR
#define KBRAIN_SOURCE_DIR "."
#endif

namespace kbrain::test {

inline std::filesystem::path reference_dir() {
  return std::filesystem::path(KBRAIN_TEST_DATA_DIR) / "io" / "all2all10";
}

// The reference experiment as the published C code ran it: 10 cells, matrix file, g_CaL file, reference pulse.
inline ExperimentConfig all2all10_config(std::int64_t steps) {
  ExperimentConfig c;
  c.source = "all2all10 (test)";
  c.name = "all2all10";
  c.steps = steps;
  c.dt = 0.05;
  c.network.type = "matrix_file";
  c.network.file = reference_dir() / "conductance_matrix.txt";
  c.network.cells = 10;
  c.g_cal.kind = "file";
  c.g_cal.file = reference_dir() / "g_CaL.txt";
  c.stimulus.kind = "reference_pulse";
  c.record.spikes = true;
  return c;
}

// v_axon.csv: row k = V_axon of every cell after k updates, k = 1..20000 (tests/data keeps the compared half of the
// reference's 40 000 rows). Returns rows[k-1][cell] for k = 1..max_steps.
inline std::vector<std::vector<double>> read_reference_v_axon(std::int64_t max_steps) {
  std::ifstream in(reference_dir() / "v_axon.csv");
  if (!in) throw std::runtime_error("cannot open " + (reference_dir() / "v_axon.csv").string());
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::vector<double>> rows;
  while ((std::int64_t)rows.size() < max_steps && std::getline(in, line)) {
    std::stringstream ss(line);
    std::string tok;
    std::getline(ss, tok, ',');  // step
    std::vector<double> row;
    while (std::getline(ss, tok, ',')) row.push_back(std::stod(tok));
    rows.push_back(std::move(row));
  }
  return rows;
}

// spike_steps.json: [[s, s, ...], ...] per cell.
inline std::vector<std::vector<std::int64_t>> read_reference_spikes() {
  std::ifstream in(reference_dir() / "spike_steps.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  std::vector<std::vector<std::int64_t>> cells;
  int depth = 0;
  std::string num;
  for (char ch : s) {
    if (ch == '[') {
      if (++depth == 2) cells.emplace_back();
    } else if (ch >= '0' && ch <= '9') {
      num += ch;
    } else {
      if (!num.empty()) {
        cells.back().push_back(std::stoll(num));
        num.clear();
      }
      if (ch == ']') --depth;
    }
  }
  return cells;
}

// Steps an IoSimulation `steps` times with a pulse early on (I_app 6 for steps 50..149, so that cells spike and
// diverge) and returns every variable of every cell.
template <class Sim>
std::vector<std::vector<double>> run_pulse_and_read_state(Sim& sim, int steps) {
  for (int n = 0; n < steps; ++n) sim.step(n >= 50 && n < 150 ? 6.0 : 0.0);
  std::vector<std::vector<double>> out;
  for (int v = 0; v < olive::NUM_VARS; ++v) out.push_back(sim.variable(v));
  return out;
}

inline double max_abs_diff(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  double m = 0;
  for (std::size_t v = 0; v < a.size(); ++v)
    for (std::size_t i = 0; i < a[v].size(); ++i) m = std::max(m, std::fabs(a[v][i] - b[v][i]));
  return m;
}

// The 10-cell IO case with a pulse of 1e30 from step 100: the state is NaN/inf within a few steps of it.
inline std::filesystem::path blow_up_experiment(const std::filesystem::path& dir) {
  const std::string data = std::string(KBRAIN_SOURCE_DIR) + "/tests/data/io/all2all10/";
  std::ofstream(dir / "blow_up.toml")
      << "name = \"blow_up\"\n[model]\nkind = \"io\"\nparameter_set = \"reference\"\n"
      << "[simulation]\ndt = 0.05\nsteps = 3000\nprecision = \"double\"\n"
      << "[network]\ntype = \"matrix_file\"\nfile = \"" << data << "conductance_matrix.txt\"\ncells = 10\n"
      << "[cells.g_cal]\nkind = \"file\"\nfile = \"" << data << "g_CaL.txt\"\n"
      << "[stimulus]\nkind = \"reference_pulse\"\namplitude = 1e30\nstart = 100\nstop = 200\n"
      << "[record]\nvariables = [\"v_axon\"]\ncells = \"all\"\nevery = 1\ncsv = true\nspikes = true\n";
  return dir / "blow_up.toml";
}

}  // namespace kbrain::test
