// `kbrain run` under mpirun (docs/mpi.md): rank 0 writes run.json, ranks.csv and the merged trace/spike files.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "backends/registry.hpp"
#include "core/text/atomic_file.hpp"
#include "core/recorders/run_manifest.hpp"
#include "experiments/program/backend_facts.hpp"
#include "experiments/program/build_info.hpp"
#include "experiments/program/commands.hpp"
#include "experiments/program/io_mpi_dispatch.hpp"
#include "models/olive/olive_plan.hpp"
#include "models/registry.hpp"
#include "experiments/program/mpi_env.hpp"
#include "models/olive/cell/io_state.hpp"

#ifdef KBRAIN_HAVE_MPI
#include <memory>

#include "core/parallel/partition.hpp"
#include "experiments/program/run_experiment.hpp"
#include "models/adex_costa/adex_mpi_exchange.hpp"
#endif

namespace kbrain {

#ifndef KBRAIN_HAVE_MPI
int cmd_run_mpi(const RunOptions&) {
  throw ConfigError("this kbrain was built without MPI (configure with -DKBRAIN_ENABLE_MPI=ON)");
}
#else

namespace {

// One row per rank. The fenced-phase columns (unpack_s ... exchange_fraction) are empty without --phase-timing.
void write_ranks_csv(const std::filesystem::path& file, const std::vector<RankPhaseTimes>& ranks) {
  text::remove_planted_link(file);
  std::ofstream f(file);
  f << "rank,cells,interior,halo,neighbours,sent,junctions,generate_s,plan_s,setup_s,simulate_s,compute_s,"
       "exchange_wait_s,pack_post_s,output_s,wall_s,phase_timing,unpack_s,interior_s,border_s,exchange_s,"
       "exchange_fraction\n";
  for (const auto& t : ranks) {
    f << fmt::format("{},{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},", t.rank,
                     t.cells, t.interior, t.halo, t.neighbours, t.sent, t.junctions, t.generate_s, t.plan_s,
                     t.setup_s, t.simulate_s, t.compute_s, t.exchange_wait_s, t.pack_post_s, t.output_s, t.wall_s,
                     t.phase_timing ? "fenced" : "off");
    if (t.phase_timing)
      f << fmt::format("{:.6f},{:.6f},{:.6f},{:.6f},{:.6f}\n", t.unpack_s, t.interior_s, t.border_s, t.exchange_s,
                       t.exchange_fraction);
    else
      f << ",,,,\n";
  }
  if (!f) throw std::runtime_error("cannot write " + file.string());
}

const char* exchange_description(const std::string& mode) {
  if (mode == "peer") return "device-to-device peer copies (CUDA IPC), MPI tokens";
  if (mode == "mpi-staged") return "MPI, staged through page-locked host buffers";
  return "MPI, buffers read in place (host memory, or device memory with CUDA-aware MPI)";
}

// The maxima and means over ranks that run.json and the summary report.
struct RankSummary {
  double wait_max = 0, wait_mean = 0, compute_max = 0, plan_max = 0, pack_max = 0;
  double exchange_max = 0, fraction_max = 0, fraction_mean = 0;
  std::int64_t halo_total = 0;
};

RankSummary summarise_ranks(const std::vector<RankPhaseTimes>& ranks) {
  RankSummary s;
  const double n = double(ranks.size());
  for (const auto& t : ranks) {
    s.wait_max = std::max(s.wait_max, t.exchange_wait_s);
    s.wait_mean += t.exchange_wait_s / n;
    s.compute_max = std::max(s.compute_max, t.compute_s);
    s.plan_max = std::max(s.plan_max, t.plan_s);
    s.pack_max = std::max(s.pack_max, t.pack_post_s);
    s.halo_total += t.halo;
    s.exchange_max = std::max(s.exchange_max, t.exchange_s);
    s.fraction_max = std::max(s.fraction_max, t.exchange_fraction);
    s.fraction_mean += t.exchange_fraction / n;
  }
  return s;
}

// run.json of a finished IO run under mpirun (rank 0).
void finish_io_manifest(RunManifest& m, const olive::OlivePlan& plan, const IoMpiRunResult& r, const RankSummary& s,
                        bool phase_timing) {
  const RunResult& run = r.run;
  m.fields["partition"] = fmt::format("{} {}x{}x{}", r.partition, r.grid[0], r.grid[1], r.grid[2]);
  m.fields["halo_exchange"] = r.exchange;
  m.fields["exchange_buffers"] = exchange_description(r.exchange);
  m.numbers["network_s"] = plan.network_build_s;
  m.numbers["junctions"] = run.connections;
  if (plan.generator) m.numbers["generate_s"] = run.generate_s;
  m.numbers["plan_s"] = s.plan_max;
  m.numbers["setup_s"] = run.setup_s;
  m.numbers["simulate_s"] = run.simulate_s;
  m.numbers["compute_s"] = s.compute_max;
  m.numbers["exchange_wait_s"] = s.wait_max;
  m.numbers["exchange_wait_mean_s"] = s.wait_mean;
  m.numbers["pack_post_s"] = s.pack_max;
  m.numbers["output_s"] = run.output_s;
  // per rank (also in ranks.csv); with --phase-timing the fenced compute / exchange split and its maxima
  m.fields["phase_timing"] = phase_timing ? "fenced" : "off";
  for (const auto& t : r.ranks) {
    const std::string q = fmt::format("rank{}_", t.rank);
    m.numbers[q + "simulate_s"] = t.simulate_s;
    m.numbers[q + "compute_s"] = t.compute_s;
    m.numbers[q + "exchange_wait_s"] = t.exchange_wait_s;
    if (!phase_timing) continue;
    m.numbers[q + "exchange_s"] = t.exchange_s;
    m.numbers[q + "exchange_fraction"] = t.exchange_fraction;
  }
  if (phase_timing) {
    m.numbers["exchange_s"] = s.exchange_max;
    m.numbers["exchange_fraction_max"] = s.fraction_max;
    m.numbers["exchange_fraction_mean"] = s.fraction_mean;
  }
  m.numbers["ns_per_cell_step"] = run.simulate_s * 1e9 / (double(plan.network->cells) * double(run.steps));
  m.numbers["halo_values_per_step"] = double(s.halo_total);
  m.numbers["spikes"] = double(run.spikes);
  m.complete = true;
}

// The summary an IO run under mpirun prints (rank 0).
void print_io_summary(const ExperimentConfig& cfg, const olive::OlivePlan& plan, const IoMpiRunResult& r,
                      const RankSummary& s, const std::string& partition, const std::string& backend,
                      Precision precision, bool phase_timing, const std::filesystem::path& out_dir) {
  const RunResult& run = r.run;
  const double cell_steps = double(plan.network->cells) * double(run.steps);
  const int ranks = static_cast<int>(r.ranks.size());
  fmt::print("{}: {} cells, {} junctions, {} steps on {} x {} ({}), {}\n", cfg.name, plan.network->cells,
             run.connections, run.steps, ranks, backend, to_string(precision), backend_facts(backend).description);
  fmt::print("  partition {}, halo {} values/step in total, halo exchange: {}\n", partition,
             s.halo_total, exchange_description(r.exchange));
  if (plan.generator) fmt::print("  generate {:.3f} s (max over ranks, own cells only)\n", run.generate_s);
  fmt::print("  plan {:.3f} s, setup {:.3f} s, simulate {:.3f} s ({:.3f} ns/cell-step, {:.3f} s per bio s), "
             "exchange wait {:.3f} s max / {:.3f} s mean, output {:.3f} s\n",
             s.plan_max, run.setup_s, run.simulate_s, run.simulate_s * 1e9 / cell_steps,
             run.simulate_s / (run.steps * plan.params.dt / 1000.0), s.wait_max, s.wait_mean, run.output_s);
  fmt::print("  | rank | cells | interior | halo | generate s | plan s | simulate s | compute s | exchange wait s | "
             "output s |\n");
  for (const auto& t : r.ranks)
    fmt::print("  | {} | {} | {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} |\n", t.rank, t.cells,
               t.interior, t.halo, t.generate_s, t.plan_s, t.simulate_s, t.compute_s, t.exchange_wait_s, t.output_s);
  if (phase_timing) {
    fmt::print("  fenced phases (--phase-timing), ms per step; exchange = pack+copy+post + wait + copy+unpack:\n");
    fmt::print("  | rank | step | interior | border | compute | pack+copy+post | wait | copy+unpack | exchange | "
               "exchange % of step |\n");
    const double per_step = 1000.0 / double(std::max<std::int64_t>(1, run.steps));
    for (const auto& t : r.ranks)
      fmt::print("  | {} | {:.4f} | {:.4f} | {:.4f} | {:.4f} | {:.4f} | {:.4f} | {:.4f} | {:.4f} | {:.1f} |\n", t.rank,
                 t.simulate_s * per_step, t.interior_s * per_step, t.border_s * per_step, t.compute_s * per_step,
                 t.pack_post_s * per_step, t.exchange_wait_s * per_step, t.unpack_s * per_step,
                 t.exchange_s * per_step, 100.0 * t.exchange_fraction);
    fmt::print("  exchange fraction of the step: {:.1f} % max over ranks, {:.1f} % mean\n", 100.0 * s.fraction_max,
               100.0 * s.fraction_mean);
  }
  fmt::print("  spikes: {}; output in {}\n", run.spikes, out_dir.string());
}

// adex_costa splits its row blocks itself: the one runner around its simulation, on every rank; rank 0 writes.
int run_adex_mpi(const ExperimentConfig& cfg, const std::string& backend, Precision precision, const RunOptions& o) {
  if (o.partition != "auto") throw ConfigError("--partition applies to IO networks; adex_costa splits its row blocks");
  if (o.device_budget >= 0) throw ConfigError("--device-budget is for single-process runs (set [simulation] device_budget)");
  auto exchange = std::make_shared<adex::MpiAdexExchange>(MPI_COMM_WORLD);
  return run_experiment<adex::AdexCostaModel>(
      cfg, backend, precision, o, [&](adex::AdexPlan& p) { p.exchange = exchange; },
      RunScope{mpi_world_rank() == 0, mpi_world_size()});
}

}  // namespace

int cmd_run_mpi(const RunOptions& o) {
  ExperimentConfig cfg = load_model_experiment(o.experiment);
  const std::string backend =
      !o.backend.empty() ? o.backend : !cfg.backend.empty() ? cfg.backend : backend_names().front();
  if (!has_backend(backend)) throw ConfigError(fmt::format("backend '{}' is not compiled into this kbrain", backend));
  const Precision precision = o.precision.empty() ? cfg.precision : parse_precision(o.precision);
  if (o.steps < 0) throw ConfigError("--steps must be > 0");
  if (cfg.model == "adex_costa") return run_adex_mpi(cfg, backend, precision, o);
  if (cfg.model != "io")
    throw ConfigError("only IO networks (model.kind = \"io\") and adex_costa run under mpirun");
  PartitionChoice choice;
  try {
    choice = parse_partition_choice(o.partition);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(std::string("--partition: ") + e.what());
  }

  if (o.size < 0) throw ConfigError("--size must be >= 1");
  if (o.density < 0) throw ConfigError("--density must be > 0");
  if (choice == PartitionChoice::Tiles2d && cfg.network.type != "mesh2d")
    throw ConfigError("--partition tiles needs a mesh2d network (this one is " + cfg.network.type + ")");
  if (choice == PartitionChoice::Bricks3d && cfg.network.type != "gaussian3d")
    throw ConfigError("--partition bricks needs a gaussian3d network (this one is " + cfg.network.type + ")");
  const olive::OlivePlan plan = olive::make_olive_plan(cfg, PlanRequest{o.size, o.density, o.steps});
  RunRequest request;
  request.out_dir = o.out_dir.empty() ? std::filesystem::path("out") / cfg.name : std::filesystem::path(o.out_dir);
  request.write_trace = cfg.record.csv || cfg.record.binary;
  request.write_spikes = cfg.record.spikes;
  request.keep_spikes = cfg.record.spikes;
  request.progress = false;
  const int ranks = mpi_world_size();
  const bool root = mpi_world_rank() == 0;

  RunManifest m;
  if (root) {
    std::filesystem::create_directories(request.out_dir);
    m.fields = {{"experiment", cfg.name},  {"source", cfg.source.string()},
                {"backend", backend},      {"precision", to_string(precision)},
                {"hardware", backend_facts(backend).description}, {"commit", git_commit()},
                {"date", today_iso()},     {"command", command_line()},
                {"kokkos", kokkos_description()}};
    m.numbers = {{"cells", double(plan.network->cells)}, {"steps", double(plan.steps)}, {"dt_ms", plan.params.dt},
                 {"ranks", double(ranks)}};
    write_manifest(request.out_dir / "run.json", m);
  }

  const IoMpiRunResult r = run_io_mpi_on(backend, precision, plan, request, choice, o.phase_timing, o.halo_exchange);
  if (!root) return 0;

  const RankSummary summary = summarise_ranks(r.ranks);
  finish_io_manifest(m, plan, r, summary, o.phase_timing);
  write_ranks_csv(request.out_dir / "ranks.csv", r.ranks);
  write_manifest(request.out_dir / "run.json", m);
  print_io_summary(cfg, plan, r, summary, m.fields["partition"], backend, precision, o.phase_timing, request.out_dir);
  return 0;
}
#endif

}  // namespace kbrain
