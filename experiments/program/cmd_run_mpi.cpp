// `kbrain run` under mpirun (docs/mpi.md): a model whose simulation splits itself over the ranks runs through the
// one runner (run_experiment.hpp) on every rank, with its plan told the ranks; rank 0 writes run.json, ranks.csv and
// the merged trace and spike files.
#include <string>

#include <fmt/format.h>

#include "backends/registry.hpp"
#include "experiments/program/commands.hpp"
#include "models/registry.hpp"

#ifdef KBRAIN_HAVE_MPI
#include <memory>
#include <stdexcept>

#include "core/parallel/halo_peer.hpp"
#include "core/parallel/partition.hpp"
#include "experiments/program/mpi_env.hpp"
#include "experiments/program/run_experiment.hpp"
#include "models/adex_costa/adex_mpi_exchange.hpp"
#include "models/olive/distributed/olive_mpi_model.hpp"
#endif

namespace kbrain {

#ifndef KBRAIN_HAVE_MPI
int cmd_run_mpi(const RunOptions&) {
  throw ConfigError("this kbrain was built without MPI (configure with -DKBRAIN_ENABLE_MPI=ON)");
}
#else

namespace {

RunScope world_scope() { return RunScope{mpi_world_rank() == 0, mpi_world_size()}; }

// adex_costa splits its row blocks itself: every rank holds a part of the blocks and exchanges block sums.
int run_adex_mpi(const ExperimentConfig& cfg, const std::string& backend, Precision precision, const RunOptions& o) {
  if (o.partition != "auto") throw ConfigError("--partition applies to IO networks; adex_costa splits its row blocks");
  if (o.device_budget >= 0) throw ConfigError("--device-budget is for single-process runs (set [simulation] device_budget)");
  auto exchange = std::make_shared<adex::MpiAdexExchange>(MPI_COMM_WORLD);
  return run_experiment<adex::AdexCostaModel>(
      cfg, backend, precision, o, [&](adex::AdexPlan& p) { p.exchange = exchange; }, world_scope());
}

// IO networks: every rank builds the plan, then its own cells' rows; --partition, --halo-exchange and
// --phase-timing say how (models/olive/distributed/).
int run_io_mpi(const ExperimentConfig& cfg, const std::string& backend, Precision precision, const RunOptions& o) {
  PartitionChoice choice;
  HaloExchange exchange;
  try {
    choice = parse_partition_choice(o.partition);
    exchange = parse_halo_exchange(o.halo_exchange);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(std::string("--partition / --halo-exchange: ") + e.what());
  }
  if (choice == PartitionChoice::Tiles2d && cfg.network.type != "mesh2d")
    throw ConfigError("--partition tiles needs a mesh2d network (this one is " + cfg.network.type + ")");
  if (choice == PartitionChoice::Bricks3d && cfg.network.type != "gaussian3d")
    throw ConfigError("--partition bricks needs a gaussian3d network (this one is " + cfg.network.type + ")");
  auto ranks = [&](olive::OliveMpiPlan& p) {
    p.comm = MPI_COMM_WORLD;
    p.partition = choice;
    p.halo_exchange = exchange;
    p.phase_timing = o.phase_timing;
  };
  try {
    return run_experiment<olive::OliveMpiModel>(cfg, backend, precision, o, ranks, world_scope());
  } catch (const NonFiniteState&) {
    // Every rank stops at the same check (it agrees over the ranks): the error aborts the job only once rank 0 has
    // written what was recorded and run.json.
    MPI_Barrier(MPI_COMM_WORLD);
    throw;
  }
}

}  // namespace

int cmd_run_mpi(const RunOptions& o) {
  ExperimentConfig cfg = load_model_experiment(o.experiment);
  const std::string backend =
      !o.backend.empty() ? o.backend : !cfg.backend.empty() ? cfg.backend : backend_names().front();
  if (!has_backend(backend)) throw ConfigError(fmt::format("backend '{}' is not compiled into this kbrain", backend));
  const Precision precision = o.precision.empty() ? cfg.precision : parse_precision(o.precision);
  if (o.steps < 0) throw ConfigError("--steps must be > 0");
  if (o.size < 0) throw ConfigError("--size must be >= 1");
  if (o.density < 0) throw ConfigError("--density must be > 0");
  if (cfg.model == "adex_costa") return run_adex_mpi(cfg, backend, precision, o);
  if (cfg.model == "io") return run_io_mpi(cfg, backend, precision, o);
  throw ConfigError("only IO networks (model.kind = \"io\") and adex_costa run under mpirun");
}
#endif

}  // namespace kbrain
