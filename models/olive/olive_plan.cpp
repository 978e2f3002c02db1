#include "models/olive/olive_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "backends/hardware_info.hpp"
#include "core/inputs/g_cal.hpp"
#include "core/inputs/stimulus.hpp"
#include "core/timing/stopwatch.hpp"
#include "models/olive/cell/io_state.hpp"
#include "models/olive/drivers/io_memory_plan.hpp"
#include "models/olive/matrix_file_memory.hpp"
#include "models/olive/olive_schema.hpp"
#include "models/runtime/memory_statement.hpp"

namespace kbrain::olive {

namespace {

olive::IoParameters make_parameters(const ExperimentConfig& cfg) {
  olive::IoParameters p = olive::io_parameter_set(cfg.parameter_set);
  p.dt = cfg.dt;
  p.gate_mode = cfg.gate_step == "corrected" ? olive::GateStepMode::Corrected : olive::GateStepMode::Reference;
  try {
    olive_parameter_table().apply_all(p, cfg.parameter_overrides);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(cfg.source.string() + ": model.parameters: " + e.what());
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

// Host bytes of a plan's network and g_CaL: the CSR offsets, a 4-byte source (and an 8-byte conductance) per
// junction, g_CaL per cell.
double network_host_bytes(std::int64_t cells, double junctions, bool per_junction_g) {
  return 8.0 * double(cells + 1) + (per_junction_g ? 12.0 : 4.0) * junctions + 8.0 * double(cells);
}

// Junctions of a rows x cols mesh: 8 per cell minus those that would point outside.
double mesh_junctions(std::int64_t rows, std::int64_t cols) {
  const double r = double(rows), c = double(cols);
  return 2.0 * (r * (c - 1) + (r - 1) * c + 2 * (r - 1) * (c - 1));
}

// Refuses (exit 2) a network whose host arrays (network_host_bytes(size)) would not fit the host's available memory,
// before they are built; `largest` says what fits.
template <class Bytes, class Largest>
void require_network_host(const ExperimentConfig& cfg, const std::string& what, std::int64_t size, Bytes bytes,
                          Largest largest) {
  const double available = double(host_available_memory_bytes());
  if (available <= 0 || bytes(size) <= available) return;
  require_host_bytes(bytes(size), available, cfg.source.string(), "[network]: " + what,
                     largest(largest_fitting(size, available, bytes)));
}

// state_bytes: per cell, what the run's state adds on the host (on a CPU backend) to the network's arrays.
GapNetwork make_network(const ExperimentConfig& cfg, std::int64_t size_override, double state_bytes) {
  const auto& n = cfg.network;
  auto cells_fit = [](std::int64_t cells) { return fmt::format("at most {} cells fit", cells); };
  const std::string state = state_bytes > 0 ? " and, on this CPU backend, the cells' state" : "";
  if (n.type == "mesh2d") {
    const auto rows = size_override > 0 ? size_override : n.rows;
    const auto cols = size_override > 0 ? size_override : n.cols;
    if (rows >= 1 && cols >= 1 && double(rows) * double(cols) < 4.0e18)
      require_network_host(
          cfg, fmt::format("the {} x {} mesh, its g_CaL{}", rows, cols, state), std::max(rows, cols),
          [&](std::int64_t side) {
            const std::int64_t r = std::min(rows, side), c = std::min(cols, side);
            return network_host_bytes(r * c, mesh_junctions(r, c), false) + state_bytes * double(r * c);
          },
          [&](std::int64_t side) {
            return fmt::format("a mesh of {} x {} cells fits", std::min(rows, side), std::min(cols, side));
          });
    return make_mesh2d(rows, cols, n.conductance);
  }
  if (n.type == "all_to_all") {
    const std::int64_t cells = size_override > 0 ? size_override : n.cells;
    if (cells >= 1)
      require_network_host(
          cfg, fmt::format("the all-to-all network of {} cells, its g_CaL{}", cells, state), cells,
          [&](std::int64_t c) {
            return network_host_bytes(c, double(c) * double(c - 1), false) + state_bytes * double(c);
          },
          cells_fit);
    return make_all_to_all(cells, n.conductance);
  }
  if (size_override > 0)
    throw ConfigError(cfg.source.string() + ": network.type = \"" + n.type +
                      "\" has its size fixed by its file; --sizes / compare.sizes apply to mesh2d and all_to_all");
  if (n.type == "matrix_file") {  // checked as it is read: the text gives its side first, its junctions as they come
    const double available = double(host_available_memory_bytes());
    return read_conductance_matrix(n.file, n.cells, [&](std::int64_t cells, std::int64_t junctions) {
      require_matrix_fits(cfg.source.string(), n.file.string(), cells, junctions, state_bytes, available);
    });
  }
  if (n.type == "edge_list")  // the header's cell count alone sizes the CSR offsets: checked before they exist
    return read_edge_list(n.file, n.cells, [&](std::int64_t cells) {
      require_network_host(
          cfg,
          fmt::format("network.file: {}: cells {}: the network (its CSR offsets and g_CaL{})", n.file.string(), cells,
                      state),
          cells, [&](std::int64_t c) { return network_host_bytes(c, 0, false) + state_bytes * double(c); }, cells_fit);
    });
  throw ConfigError(cfg.source.string() + ": unknown network.type '" + n.type + "'");
}

// Size, connections and the serial budget's work per step, for run.json and compare rows.
void describe_size(OlivePlan& plan) {
  const GapNetwork& net = *plan.network;
  plan.cells = net.cells;
  plan.connections = plan.generator ? plan.generator->expected_junctions : double(net.junctions());
  plan.size_label = net.is_mesh()      ? fmt::format("{}x{}", net.mesh_rows, net.mesh_cols)
                    : plan.generator ? fmt::format("{} d={}", plan.generator->spec.kind_name(),
                                                   plan.generator->spec.density)
                                     : fmt::format("{}", net.cells);
  // A cell with J junctions costs max(1, J/8) mesh cells (the 8-neighbour mesh): dense random networks run
  // proportionally fewer steps on the slow backends.
  plan.work_per_step = std::ceil(double(net.cells) *
                                 std::max(1.0, plan.connections / std::max<double>(1.0, double(net.cells)) / 8.0));
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

OlivePlan make_olive_plan(const ExperimentConfig& cfg, const PlanRequest& request) {
  const std::int64_t size_override = request.size;
  const double density_override = request.density;
  OlivePlan plan;
  plan.config = &cfg;
  plan.params = make_parameters(cfg);
  plan.steps = request.steps > 0 ? request.steps : cfg.steps;
  plan.dt_ms = plan.params.dt;
  plan.gap_kernel = cfg.option("gap_kernel", "auto");
  plan.use_mesh_kernel = cfg.option("mesh_kernel", "on") == "on";
  if (plan.gap_kernel == "tiled" && cfg.network.type != "gaussian3d")
    throw ConfigError("gap_kernel = \"tiled\" needs a gaussian3d network (cells on a lattice); " +
                      cfg.source.string() + " has network.type = \"" + cfg.network.type + "\"");
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
      // On a CPU backend the cells' state is host memory too: at least two buffers of every variable in float
      const double state_bytes = request.state_on_host ? 2.0 * olive::NUM_VARS * sizeof(float) : 0.0;
      plan.network = std::make_shared<const GapNetwork>(make_network(cfg, size_override, state_bytes));
    }
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    throw ConfigError(cfg.source.string() + ": [network]: " + e.what());
  }
  const auto cells = plan.network->cells;
  if (plan.generator)  // a generated network is built on the backend; the host holds g_CaL
    require_host_bytes(8.0 * double(cells), cfg.source.string(), fmt::format("[cells.g_cal]: g_CaL of {} cells", cells));
  if (plan.generator && request.state_on_host) {
    // On a CPU backend the generated network and the cells' state are host memory too. The least the run will hold
    // (state in float, the junction bound, the generator's temporaries) is checked against the memory available
    // now, before g_CaL or anything else of the run exists: a network far too large is refused in milliseconds.
    olive::IoMemoryShape least;
    least.cells = cells;
    least.real_bytes = sizeof(float);
    least.spikes = false;
    least.generated = true;
    least.junctions = plan.generator->junction_bound;
    least.per_junction_g = !plan.generator->spec.constant_conductance();
    least.symmetric = plan.generator->spec.symmetric;
    least.generator_table_bytes = plan.generator->table_bytes();
    try {
      olive::require_memory(least, host_available_memory_bytes(), "this CPU backend's host memory (float, at least)");
    } catch (const olive::MemoryPlanError& e) {
      throw ConfigError(cfg.source.string() + ": [network]: " + e.what());
    }
  }
  try {
    plan.g_cal = make_g_cal(cfg.g_cal, cells);
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& e) {
    throw ConfigError(cfg.source.string() + ": [cells.g_cal]: " + e.what());
  }
  // The stimulus files too are read (a schedule) or checked (a cell file's first line and its length) here, before
  // any output exists: a mistake in them is refused like a config error, not found part-way through a run.
  try {
    plan.stimulus = checked_stimulus(cfg.stimulus, cells, plan.steps);
  } catch (const ConfigError& e) {
    throw ConfigError(cfg.source.string() + ": [stimulus]: " + e.what());
  } catch (const std::exception& e) {
    throw ConfigError(cfg.source.string() + ": stimulus.file: " + e.what());
  }
  plan.network_build_s = sw.seconds();
  plan.host_bytes = 8.0 * double(plan.network->offsets.size()) + 4.0 * double(plan.network->sources.size()) +
                    8.0 * double(plan.network->conductance.size()) + 8.0 * double(plan.g_cal.size());

  describe_size(plan);
  plan.record_spikes = cfg.record.spikes;
  plan.record_csv = cfg.record.csv;
  plan.record_binary = cfg.record.binary;
  plan.record_sonata = cfg.record.sonata;
  plan.trace_every = std::max<std::int64_t>(1, cfg.record.every);
  plan.probe_var = olive::V_AXON;
  plan.voltage_vars = {olive::V_DEND, olive::V_SOMA, olive::V_AXON};  // elements 0, 1, 2 of the report, in mV
  for (int v = 0; v < olive::NUM_VARS; ++v) {
    plan.checked_vars.push_back(v);
    plan.checked_var_names.push_back(olive::kVarNames[v]);
  }
  if (size_override > 0) return plan;  // resized networks (compare) record no traces: record.cells refer to the file's size

  for (const auto& name : cfg.record.variables) {
    const int v = olive::var_index(name);
    if (v < 0) throw ConfigError(cfg.source.string() + ": record.variables: unknown IO variable '" + name + "'");
    plan.trace_vars.push_back(v);
    plan.trace_var_names.push_back(name);
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

}  // namespace kbrain::olive
