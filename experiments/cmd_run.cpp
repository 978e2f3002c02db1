#include <filesystem>

#include <fmt/format.h>

#include "backends/registry.hpp"
#include "core/recorders/run_manifest.hpp"
#include "experiments/backend_facts.hpp"
#include "experiments/build_info.hpp"
#include "experiments/commands.hpp"
#include "experiments/io_dispatch.hpp"
#include "experiments/io_run_plan.hpp"
#include "experiments/mpi_env.hpp"
#include "experiments/spiking_commands.hpp"

namespace kbrain {


int cmd_run(const RunOptions& o) {
  if (mpi_active() && o.gap_kernel != "auto" && o.gap_kernel != "fused")
    throw ConfigError("under mpirun every rank uses the fused CSR gap kernel; --gap-kernel " + o.gap_kernel +
                      " is for single-process runs");
  if (mpi_active()) return cmd_run_mpi(o);  // started by mpirun (MPI build): the distributed runner
  const ExperimentConfig cfg = load_experiment(o.experiment);
  std::string backend = !o.backend.empty() ? o.backend : !cfg.backend.empty() ? cfg.backend : backend_names().front();
  if (!has_backend(backend)) {
    std::string list;
    for (auto& n : backend_names()) list += (list.empty() ? "" : ", ") + n;
    throw ConfigError(fmt::format("backend '{}' is not compiled into this kbrain (available: {})", backend, list));
  }
  const Precision precision = o.precision.empty() ? cfg.precision : parse_precision(o.precision);
  if (o.steps < 0) throw ConfigError("--steps must be > 0");
  if (o.size < 0) throw ConfigError("--size must be >= 1");
  if (o.density < 0) throw ConfigError("--density must be > 0");
  if (o.phase_timing)
    throw ConfigError("--phase-timing times the phases of the distributed step: run under mpirun (one rank is fine)");
  if (o.halo_exchange != "auto")
    throw ConfigError("--halo-exchange chooses how MPI ranks exchange halo values: run under mpirun");
  if (o.gap_kernel != "auto" && is_spiking_model(cfg.model))
    throw ConfigError("--gap-kernel applies to IO networks; " + cfg.source.string() + " is a spiking model");
  if (o.gap_kernel == "tiled" && cfg.network.type != "gaussian3d")
    throw ConfigError("--gap-kernel tiled needs a gaussian3d network (cells on a lattice); " + cfg.source.string() +
                      " has network.type = \"" + cfg.network.type + "\"");
  if (is_spiking_model(cfg.model))
    return cmd_run_spiking(cfg, backend, precision, o.steps,
                           o.out_dir.empty() ? std::filesystem::path("out") / cfg.name : std::filesystem::path(o.out_dir));

  IoRunPlan plan = make_io_plan(cfg, o.size, o.steps, o.density);  // reads every input file before any output exists
  plan.use_mesh_kernel = !o.no_mesh_kernel;
  plan.gap_kernel = o.gap_kernel;
  plan.out_dir = o.out_dir.empty() ? std::filesystem::path("out") / cfg.name : std::filesystem::path(o.out_dir);
  plan.write_trace = cfg.record.csv || cfg.record.binary;
  plan.write_spikes = cfg.record.spikes;
  std::filesystem::create_directories(plan.out_dir);

  RunManifest m;
  m.fields = {{"experiment", cfg.name},         {"source", cfg.source.string()},
              {"backend", backend},             {"precision", to_string(precision)},
              {"hardware", backend_facts(backend).description}, {"commit", git_commit()},
              {"date", today_iso()},            {"command", command_line()},
              {"kokkos", kokkos_description()}};
  m.numbers = {{"cells", double(plan.network->cells)},
               {"junctions", double(plan.network->junctions())},
               {"steps", double(plan.steps)},
               {"dt_ms", plan.params.dt}};
  write_manifest(plan.out_dir / "run.json", m);

  const IoRunResult r = run_io_on(backend, precision, plan);

  const double cell_steps = double(plan.network->cells) * double(r.steps);
  m.numbers["network_s"] = plan.network_build_s;
  m.numbers["junctions"] = double(r.junctions);
  if (plan.generator) m.numbers["generate_s"] = r.generate_s;
  m.numbers["setup_s"] = r.setup_s;
  m.numbers["simulate_s"] = r.simulate_s;
  m.numbers["output_s"] = r.output_s;
  m.numbers["ns_per_cell_step"] = r.simulate_s * 1e9 / cell_steps;
  m.numbers["spikes"] = double(r.spikes);
  m.fields["gap_kernel"] = r.gap_kernel;
  m.complete = true;
  write_manifest(plan.out_dir / "run.json", m);

  fmt::print("{}: {} cells, {} junctions, {} steps on {} ({}), {}\n", cfg.name, plan.network->cells,
             r.junctions, r.steps, backend, to_string(precision), backend_facts(backend).description);
  if (plan.generator) fmt::print("  generate {:.3f} s ({} on {})\n", r.generate_s, cfg.network.type, backend);
  fmt::print("  network {:.3f} s, setup {:.3f} s, simulate {:.3f} s ({:.3f} ns/cell-step, {:.3f} s per bio s), "
             "output {:.3f} s\n",
             plan.network_build_s, r.setup_s, r.simulate_s, r.simulate_s * 1e9 / cell_steps,
             r.simulate_s / (r.steps * plan.params.dt / 1000.0), r.output_s);
  fmt::print("  gap kernel: {}; spikes: {}; output in {}\n", r.gap_kernel, r.spikes, plan.out_dir.string());
  return 0;
}

}  // namespace kbrain
