#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "backends/registry.hpp"
#include "experiments/program/backend_facts.hpp"
#include "experiments/program/commands.hpp"
#include "experiments/program/compare_experiment.hpp"
#include "experiments/program/compare_peer.hpp"
#include "experiments/program/variant_option.hpp"
#include "experiments/program/mpi_env.hpp"
#include "experiments/program/output_folder_command.hpp"
#include "models/registry.hpp"

namespace kbrain {

namespace {

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

}  // namespace

CompareSweep make_compare_sweep(const CompareOptions& o, const ExperimentConfig& cfg) {
  for (double d : o.densities)
    if (!(d > 0)) throw ConfigError("--densities: junctions per cell must be > 0");
  const auto backends = choose_backends(o, cfg);
  std::vector<Precision> precisions;
  for (auto& p : (o.precisions.empty() ? cfg.compare.precisions : o.precisions)) precisions.push_back(parse_precision(p));
  std::vector<std::int64_t> sizes = o.sizes.empty() ? cfg.compare.sizes : o.sizes;
  if (sizes.empty()) sizes.push_back(0);  // the experiment's own size
  for (auto s : sizes)
    if (s < 0) throw ConfigError("--sizes: sizes must be >= 1");
  CompareSweep sweep;
  sweep.backends = backends;
  sweep.precisions = precisions;
  sweep.sizes = sizes;
  sweep.densities = !o.densities.empty() ? o.densities : cfg.compare.densities;
  if (sweep.densities.empty()) sweep.densities.push_back(0);  // the experiment's own density
  sweep.variants = !o.variants.empty() ? o.variants : cfg.compare.variants;
  check_variants(cfg, o.variants, "--variants");
  if (sweep.variants.empty()) sweep.variants.push_back("");  // the experiment's own
  sweep.steps = o.steps;
  sweep.finite_check_every = o.finite_check_every;
  sweep.budget = o.max_slow_cell_steps > 0 ? o.max_slow_cell_steps : cfg.compare.max_slow_cell_steps;
  check_peer(o.peer, cfg);
  sweep.peer = o.peer;
  if (!o.peer.empty() && std::find(backends.begin(), backends.end(), "openmp") != backends.end())
    sweep.peer_threads = backend_facts("openmp").units;
  sweep.target = o.out_dir.empty() ? std::filesystem::path("out") / cfg.name / "compare" : std::filesystem::path(o.out_dir);
  return sweep;
}

int run_compare_sweep(const ExperimentConfig& cfg, const CompareSweep& sweep) {
  int code = 0;
  with_model(cfg.model, [&](auto tag) { code = compare_experiment<typename decltype(tag)::type>(cfg, sweep); });
  return code;
}

int cmd_compare(const CompareOptions& o) {
  for (double d : o.densities)
    if (!(d > 0)) throw ConfigError("--densities: junctions per cell must be > 0");
  if (!o.ranks.empty() && !o.threads.empty()) throw ConfigError("--ranks and --threads are two tables: give one");
  if (!o.peer.empty() && (!o.ranks.empty() || !o.threads.empty()))
    throw ConfigError("--peer adds rows to the backends table: not with --ranks or --threads");
  if (!o.ranks.empty()) return cmd_compare_ranks(o);
  if (!o.threads.empty()) return cmd_compare_threads(o);
  if (o.weak || o.partition != "auto" || o.halo_exchange != "auto")
    throw ConfigError("--weak, --partition and --halo-exchange apply to the ranks axis: give --ranks K1,K2,...");
  if (mpi_world_size() > 1)
    throw ConfigError("kbrain compare does not run under mpirun; use `kbrain compare --ranks K1,K2,...` instead");
  const ExperimentConfig cfg = load_model_experiment(o.experiment);
  CompareSweep sweep = make_compare_sweep(o, cfg);
  auto compare = [&](const std::filesystem::path& work) {
    sweep.out_dir = work;
    return run_compare_sweep(cfg, sweep);
  };
  return write_in_output_folder(sweep.target, compare, [&](const std::filesystem::path& dir) {
    if (!o.no_plots) draw_pictures(dir);
  });
}

}  // namespace kbrain
