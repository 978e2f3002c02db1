#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "backends/registry.hpp"
#include "core/report/comparison_report.hpp"
#include "experiments/backend_facts.hpp"
#include "experiments/build_info.hpp"
#include "experiments/commands.hpp"
#include "experiments/io_dispatch.hpp"
#include "experiments/io_run_plan.hpp"
#include "experiments/mpi_env.hpp"
#include "experiments/spiking_commands.hpp"
#include "experiments/report_files.hpp"

namespace kbrain {

namespace {

// V_axon probes are sampled every kProbeEvery steps: one small gather kernel per sample, so the timed loop stays
// within a few per cent of an unobserved run even at small sizes on a GPU. Spikes are detected at every step.
constexpr std::int64_t kProbeEvery = 10;

std::vector<std::string> choose_backends(const CompareOptions& o, const ExperimentConfig& cfg) {
  std::vector<std::string> out;
  if (!o.backends.empty()) {
    for (auto& b : o.backends) {
      if (!has_backend(b)) throw ConfigError(fmt::format("--backends: '{}' is not compiled into this kbrain", b));
      out.push_back(b);
    }
    return out;
  }
  if (cfg.compare.backends.empty()) return backend_names();
  for (auto& b : cfg.compare.backends) {
    if (has_backend(b))
      out.push_back(b);
    else
      fmt::print(stderr, "note: backend '{}' (compare.backends) is not compiled in; skipped\n", b);
  }
  if (out.empty()) throw ConfigError(cfg.source.string() + ": none of compare.backends is compiled in");
  return out;
}

void fill_agreement(ComparisonRow& row, const IoRunResult& r, const IoRunResult& ref, std::size_t probes,
                    std::int64_t probe_every) {
  const std::int64_t common = std::min(r.steps, ref.steps);
  double max_dv = 0;
  const std::size_t n = static_cast<std::size_t>(common / probe_every) * probes;
  for (std::size_t k = 0; k < n && k < r.probe_v_axon.size() && k < ref.probe_v_axon.size(); ++k)
    max_dv = std::max(max_dv, std::fabs(r.probe_v_axon[k] - ref.probe_v_axon[k]));
  row.max_abs_dv_axon = max_dv;
  auto count_upto = [common](const std::vector<std::int64_t>& s) {
    return static_cast<std::int64_t>(std::count_if(s.begin(), s.end(), [&](std::int64_t x) { return x <= common; }));
  };
  row.spikes = count_upto(r.spike_steps);
  row.reference_spikes = count_upto(ref.spike_steps);
}

}  // namespace

int cmd_compare(const CompareOptions& o) {
  for (double d : o.densities)
    if (!(d > 0)) throw ConfigError("--densities: junctions per cell must be > 0");
  if (!o.ranks.empty()) return cmd_compare_ranks(o);
  if (o.weak || o.partition != "auto" || o.halo_exchange != "auto")
    throw ConfigError("--weak, --partition and --halo-exchange apply to the ranks axis: give --ranks K1,K2,...");
  if (mpi_world_size() > 1)
    throw ConfigError("kbrain compare does not run under mpirun; use `kbrain compare --ranks K1,K2,...` instead");
  const ExperimentConfig cfg = load_experiment(o.experiment);
  const auto backends = choose_backends(o, cfg);
  std::vector<Precision> precisions;
  for (auto& p : (o.precisions.empty() ? cfg.compare.precisions : o.precisions)) precisions.push_back(parse_precision(p));
  std::vector<std::int64_t> sizes = o.sizes.empty() ? cfg.compare.sizes : o.sizes;
  if (sizes.empty()) sizes.push_back(0);  // the experiment's own size
  for (auto s : sizes)
    if (s < 0) throw ConfigError("--sizes: sizes must be >= 1");
  const std::int64_t budget = o.max_slow_cell_steps > 0 ? o.max_slow_cell_steps : cfg.compare.max_slow_cell_steps;
  if (is_spiking_model(cfg.model))
    return cmd_compare_spiking(cfg, backends, precisions, sizes, o.steps, budget,
                               o.out_dir.empty() ? std::filesystem::path("out") / cfg.name / "compare"
                                                 : std::filesystem::path(o.out_dir));
  const std::string ref_backend = reference_backend(backends);

  std::map<std::string, BackendFacts> fact;
  for (auto& b : backends) fact[b] = backend_facts(b);
  if (!fact.count(ref_backend)) fact[ref_backend] = backend_facts(ref_backend);

  ComparisonReport report;
  report.experiment = cfg.name;
  report.date = today_iso();
  report.commit = git_commit();
  report.command = command_line();
  report.kokkos = kokkos_description();
  report.dt_ms = cfg.dt;
  for (auto& [name, f] : fact) report.hardware.emplace_back(name, f.description);

  const auto out_dir = o.out_dir.empty() ? std::filesystem::path("out") / cfg.name / "compare"
                                         : std::filesystem::path(o.out_dir);
  // uniform/gaussian3d: network.density sweep
  std::vector<double> densities = !o.densities.empty() ? o.densities : cfg.compare.densities;
  if (densities.empty()) densities.push_back(0);          // the experiment's own density
  for (double density : densities)
  for (auto size : sizes) {
    IoRunPlan plan = make_io_plan(cfg, size, o.steps, density);
    plan.probe_cells = spread_cells(plan.network->cells, cfg.compare.probe_cells);
    plan.probe_every = kProbeEvery;
    plan.count_spikes = true;
    const auto cells = plan.network->cells;
    const std::string label =
        plan.network->is_mesh() ? fmt::format("{}x{}", plan.network->mesh_rows, plan.network->mesh_cols)
        : plan.generator        ? fmt::format("{} d={}", plan.generator->spec.kind_name(), plan.generator->spec.density)
                                : fmt::format("{}", cells);
    fmt::print(stderr, "[compare] {} cells ({}), {} junctions\n", cells, label,
               plan.generator ? plan.generator->expected_junctions : double(plan.network->junctions()));

    // Slow-backend budget in mesh-equivalent cell-steps: a cell with J junctions costs max(1, J/8) mesh cells
    // (the 8-neighbour mesh), so dense random networks run proportionally fewer CPU steps.
    const double junctions = plan.generator ? plan.generator->expected_junctions : double(plan.network->junctions());
    const auto work = static_cast<std::int64_t>(
        std::ceil(double(cells) * std::max(1.0, junctions / std::max<double>(1.0, double(cells)) / 8.0)));

    // Reference: serial double (or the first backend in double when serial is not compiled in).
    IoRunPlan ref_plan = plan;
    ref_plan.steps = budget_steps(fact[ref_backend], work, plan.steps, budget);
    const IoRunResult ref = run_io_on(ref_backend, Precision::Double, ref_plan);

    for (auto& b : backends)
      for (auto prec : precisions) {
        IoRunResult r;
        if (b == ref_backend && prec == Precision::Double) {
          r = ref;
        } else {
          IoRunPlan p = plan;
          p.steps = budget_steps(fact[b], work, plan.steps, budget);
          r = run_io_on(b, prec, p);
        }
        ComparisonRow row;
        row.cells = cells;
        row.junctions = r.junctions;
        row.size_label = label;
        row.backend = b;
        row.precision = to_string(prec);
        row.steps = r.steps;
        row.steps_requested = plan.steps;
        row.setup_s = r.setup_s;
        row.simulate_s = r.simulate_s;
        row.output_s = r.output_s;
        row.ns_per_cell_step = r.simulate_s * 1e9 / (double(cells) * double(r.steps));
        row.wall_s_per_bio_s = r.simulate_s / (double(r.steps) * cfg.dt / 1000.0);
        fill_agreement(row, r, ref, plan.probe_cells.size(), plan.probe_every);
        row.note = r.gap_kernel.rfind("mesh", 0) == 0 ? r.gap_kernel + " kernel" : r.gap_kernel;
        if (plan.generator) row.note += fmt::format("; generate {:.3g} s", r.generate_s);
        if (ref_backend != "serial") row.note += "; reference: " + ref_backend + " double";
        report.rows.push_back(row);
        fmt::print(stderr, "[compare]   {:<7} {:<6} {:>8} steps  {:.4g} ns/cell-step  max|dV| {:.3g} mV\n", b,
                   to_string(prec), r.steps, row.ns_per_cell_step, row.max_abs_dv_axon);
        save_comparison(out_dir, report, false);
      }
  }
  publish_comparison(out_dir, report);
  return 0;
}

}  // namespace kbrain
