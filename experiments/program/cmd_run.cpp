#include <filesystem>

#include <fmt/format.h>

#include "backends/registry.hpp"
#include "core/recorders/run_manifest.hpp"
#include "experiments/program/variant_option.hpp"
#include "experiments/program/backend_facts.hpp"
#include "experiments/program/build_info.hpp"
#include "experiments/program/commands.hpp"
#include "experiments/program/mpi_env.hpp"
#include "experiments/program/run_experiment.hpp"
#include "models/registry.hpp"

namespace kbrain {

namespace {

// The CLI's model options (--gap-kernel, --no-mesh-kernel) override the file's [simulation] settings; a model
// without such an option refuses them.
void apply_cli_options(ExperimentConfig& cfg, const RunOptions& o) {
  const ModelSchema* schema = model_catalog().find(cfg.model);
  auto set = [&](const char* flag, const std::string& key, const std::string& value) {
    if (!schema->option(key))
      throw ConfigError(fmt::format("{} applies to models with a [simulation] {} setting; {} has model.kind = "
                                    "\"{}\"",
                                    flag, key, cfg.source.string(), cfg.model));
    cfg.set_option(key, value);
  };
  if (o.gap_kernel != "auto") set("--gap-kernel", "gap_kernel", o.gap_kernel);
  if (o.no_mesh_kernel) set("--no-mesh-kernel", "mesh_kernel", "off");
  if (o.device_budget >= 0) {
    if (!cfg.settings.has("simulation.device_budget"))
      throw ConfigError(fmt::format("--device-budget applies to models with a [simulation] device_budget setting; {} "
                                    "has model.kind = \"{}\"",
                                    cfg.source.string(), cfg.model));
    SettingValue& v = cfg.settings.at("simulation.device_budget");
    v.number = o.device_budget;
    v.given = true;
    v.where = "--device-budget";
  }
}

}  // namespace


int cmd_run(const RunOptions& o) {
  if (mpi_active() && o.gap_kernel != "auto" && o.gap_kernel != "fused")
    throw ConfigError("under mpirun every rank uses the fused CSR gap kernel; --gap-kernel " + o.gap_kernel +
                      " is for single-process runs");
  if (mpi_active()) return cmd_run_mpi(o);  // started by mpirun (MPI build): the distributed runner
  ExperimentConfig cfg = load_model_experiment(o.experiment);
  std::string backend = !o.backend.empty() ? o.backend : !cfg.backend.empty() ? cfg.backend : backend_names().front();
  if (!has_backend(backend)) {
    std::string list;
    for (auto& n : backend_names()) list += (list.empty() ? "" : ", ") + n;
    throw ConfigError(fmt::format("backend '{}' is not compiled into this kbrain (available: {})", backend, list));
  }
  const Precision precision = o.precision.empty() ? cfg.precision : parse_precision(o.precision);
  if (o.steps < 0) throw ConfigError("--steps must be > 0");
  if (!o.variant.empty()) check_variants(cfg, {o.variant}, "--variant");
  if (o.size < 0) throw ConfigError("--size must be >= 1");
  if (o.density < 0) throw ConfigError("--density must be > 0");
  if (o.phase_timing)
    throw ConfigError("--phase-timing times the phases of the distributed step: run under mpirun (one rank is fine)");
  if (o.halo_exchange != "auto")
    throw ConfigError("--halo-exchange chooses how MPI ranks exchange halo values: run under mpirun");
  apply_cli_options(cfg, o);
  int code = 0;
  with_model(cfg.model, [&](auto tag) {
    code = run_experiment<typename decltype(tag)::type>(cfg, backend, precision, o);
  });
  return code;
}

}  // namespace kbrain
