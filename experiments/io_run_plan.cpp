#include "experiments/io_run_plan.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/inputs/g_cal.hpp"
#include "core/timing/stopwatch.hpp"
#include "models/olive/cell/io_state.hpp"

namespace kbrain {

namespace {

olive::IoParameters make_parameters(const ExperimentConfig& cfg) {
  olive::IoParameters p = olive::io_parameter_set(cfg.parameter_set);
  p.dt = cfg.dt;
  p.gate_mode = cfg.gate_step == "corrected" ? olive::GateStepMode::Corrected : olive::GateStepMode::Reference;
  for (const auto& [key, value] : cfg.parameter_overrides) {
    double* field = nullptr;
    if (key == "c_m") field = &p.c_m;
    else if (key == "g_na_s") field = &p.g_na_s;
    else if (key == "g_kdr_s") field = &p.g_kdr_s;
    else if (key == "g_k_s") field = &p.g_k_s;
    else if (key == "g_ls") field = &p.g_ls;
    else if (key == "g_k_ca") field = &p.g_k_ca;
    else if (key == "g_cah") field = &p.g_cah;
    else if (key == "g_ld") field = &p.g_ld;
    else if (key == "g_h") field = &p.g_h;
    else if (key == "g_na_a") field = &p.g_na_a;
    else if (key == "g_k_a") field = &p.g_k_a;
    else if (key == "g_la") field = &p.g_la;
    else if (key == "p1") field = &p.p1;
    else if (key == "p2") field = &p.p2;
    else if (key == "g_int") field = &p.g_int;
    else if (key == "v_na") field = &p.v_na;
    else if (key == "v_k") field = &p.v_k;
    else if (key == "v_ca") field = &p.v_ca;
    else if (key == "v_h") field = &p.v_h;
    else if (key == "v_l") field = &p.v_l;
    if (!field) throw ConfigError(cfg.source.string() + ": model.parameters." + key + " is not an IO constant");
    *field = value;
  }
  return p;
}

RandomNetworkSpec make_generator_spec(const NetworkConfig& n, std::int64_t size_override, double density_override) {
  RandomNetworkSpec s;
  s.kind = n.type == "uniform" ? RandomNetworkSpec::Kind::Uniform : RandomNetworkSpec::Kind::Gaussian3d;
  s.cells = size_override > 0 ? size_override : n.cells;
  s.density = density_override > 0 ? density_override : n.density;
  s.exact = n.mode == "exact";
  s.sigma = n.sigma;
  s.scale = n.scale;
  s.symmetric = n.symmetric;
  s.seed = n.seed;
  s.g_low = n.conductance_range ? n.conductance_low : n.conductance;
  s.g_high = n.conductance_range ? n.conductance_high : n.conductance;
  return s;
}

GapNetwork make_network(const ExperimentConfig& cfg, std::int64_t size_override) {
  const auto& n = cfg.network;
  if (n.type == "mesh2d") {
    const auto rows = size_override > 0 ? size_override : n.rows;
    const auto cols = size_override > 0 ? size_override : n.cols;
    return make_mesh2d(rows, cols, n.conductance);
  }
  if (n.type == "all_to_all") return make_all_to_all(size_override > 0 ? size_override : n.cells, n.conductance);
  if (size_override > 0)
    throw ConfigError(cfg.source.string() + ": network.type = \"" + n.type +
                      "\" has its size fixed by its file; --sizes / compare.sizes apply to mesh2d and all_to_all");
  if (n.type == "matrix_file") return read_conductance_matrix(n.file, n.cells);
  if (n.type == "edge_list") return read_edge_list(n.file, n.cells);
  throw ConfigError(cfg.source.string() + ": unknown network.type '" + n.type + "'");
}

}  // namespace

std::vector<std::int64_t> spread_cells(std::int64_t cells, std::int64_t count) {
  std::vector<std::int64_t> out;
  if (cells <= 0 || count <= 0) return out;
  count = std::min(count, cells);
  for (std::int64_t k = 0; k < count; ++k)
    out.push_back(count == 1 ? 0 : (k * (cells - 1)) / (count - 1));
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

IoRunPlan make_io_plan(const ExperimentConfig& cfg, std::int64_t size_override, std::int64_t steps_override,
                       double density_override) {
  if (cfg.model != "io") throw ConfigError(cfg.source.string() + ": model.kind '" + cfg.model + "' is not runnable");
  IoRunPlan plan;
  plan.config = &cfg;
  plan.params = make_parameters(cfg);
  plan.steps = steps_override > 0 ? steps_override : cfg.steps;
  Stopwatch sw;
  // Input files are user input: any problem reading them is reported like a config error (exit code 2).
  try {
    if (cfg.network.generated()) {  // tables only (validates the parameters); the runner generates the CSR
      plan.generator = std::make_shared<const RandomNetworkTables>(
          make_random_network_tables(make_generator_spec(cfg.network, size_override, density_override)));
      GapNetwork placeholder;
      placeholder.cells = plan.generator->spec.cells;
      plan.network = std::make_shared<const GapNetwork>(std::move(placeholder));
    } else {
      if (density_override > 0)
        throw ConfigError(cfg.source.string() +
                          ": a density override (--density, --densities, compare.densities) applies to uniform and "
                          "gaussian3d networks only");
      plan.network = std::make_shared<const GapNetwork>(make_network(cfg, size_override));
    }
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    throw ConfigError(cfg.source.string() + ": [network]: " + e.what());
  }
  const auto cells = plan.network->cells;
  try {
    plan.g_cal = make_g_cal(cfg.g_cal, cells);
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    throw ConfigError(cfg.source.string() + ": [cells.g_cal]: " + e.what());
  }
  plan.network_build_s = sw.seconds();

  plan.count_spikes = cfg.record.spikes;
  if (size_override > 0) return plan;  // resized networks (compare) record no traces: record.cells refer to the file's size

  for (const auto& name : cfg.record.variables) {
    const int v = olive::var_index(name);
    if (v < 0) throw ConfigError(cfg.source.string() + ": record.variables: unknown IO variable '" + name + "'");
    plan.trace_vars.push_back(v);
  }
  if (cfg.record.all_cells) {
    for (std::int64_t i = 0; i < cells; ++i) plan.trace_cells.push_back(i);
  } else {
    for (auto c : cfg.record.cells) {
      if (c < 0 || c >= cells)
        throw ConfigError(cfg.source.string() + ": record.cells: cell " + std::to_string(c) +
                          " is outside the network (0 .. " + std::to_string(cells - 1) + ")");
      plan.trace_cells.push_back(c);
    }
  }
  return plan;
}

TraceSpec io_trace_spec(const IoRunPlan& plan, const ExperimentConfig& cfg, std::int64_t every,
                        bool single_precision) {
  TraceSpec spec;
  for (int v : plan.trace_vars) spec.variables.push_back(olive::kVarNames[v]);
  spec.cells = plan.trace_cells;
  spec.every = every;
  spec.dt_ms = plan.params.dt;
  spec.csv = cfg.record.csv;
  spec.binary = cfg.record.binary;
  spec.single_precision = single_precision;
  return spec;
}

}  // namespace kbrain
