#pragma once
// `kbrain run` for any model (cmd_run.cpp chooses the model): plan, run.json (complete: false), the run on the
// chosen backend, run.json (complete: true), the folder moved into place (core/recorders/output_folder.hpp), a
// summary. A run that fails or is interrupted keeps its folder under its working name, run.json saying why. The model
// contributes its plan, its run.json fields (Model::describe) and its figures (RunResult::figures, populations;
// fields, details, report and, for a run split over ranks, the rank table written as ranks.csv).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/recorders/output_folder.hpp"
#include "core/recorders/run_manifest.hpp"
#include "core/text/atomic_file.hpp"
#include "experiments/program/backend_facts.hpp"
#include "experiments/program/build_info.hpp"
#include "experiments/program/commands.hpp"
#include "models/runtime/non_finite_state.hpp"
#include "models/runtime/plausible_bounds.hpp"
#include "models/runtime/run_interrupted.hpp"
#include "models/runtime/run_dispatch.hpp"

namespace kbrain {

template <class Model>
RunManifest start_manifest(const ExperimentConfig& cfg, const typename Model::Plan& plan, const std::string& backend,
                           Precision precision) {
  RunManifest m;
  m.fields = {{"experiment", cfg.name},       {"source", cfg.source.string()},
              {"model", cfg.model},           {"backend", backend},
              {"precision", to_string(precision)}, {"hardware", backend_facts(backend).description},
              {"commit", git_commit()},       {"date", today_iso()},
              {"command", command_line()},    {"kokkos", kokkos_description()}};
  for (const auto& [k, v] : Model::describe(plan)) m.fields[k] = v;
  for (const ModelSchema& s : Model::schemas())  // the recorded variables' units, for the pictures
    if (s.kind == cfg.model)
      for (const auto& v : s.variables)
        for (const auto& name : plan.trace_var_names)
          if (v.name == name) m.fields["unit_" + name] = v.unit;
  m.numbers = {{Model::kCells, double(plan.cells)},
               {Model::kConnections, plan.connections},
               {"steps", double(plan.steps)},
               {"dt_ms", plan.dt_ms}};
  if (plan.warmup_steps > 0) m.numbers["warmup_steps"] = double(plan.warmup_steps);  // before the timed `steps`
  return m;
}

template <class Model>
void finish_manifest(RunManifest& m, const typename Model::Plan& plan, const RunResult& r) {
  const double bio_s = double(r.steps) * plan.dt_ms / 1000.0;
  m.numbers["network_s"] = plan.network_build_s;
  m.numbers[Model::kConnections] = r.connections;
  if (r.generate_s > 0) m.numbers["generate_s"] = r.generate_s;
  m.numbers["setup_s"] = r.setup_s;
  m.numbers["simulate_s"] = r.simulate_s;
  m.numbers["output_s"] = r.output_s;
  m.numbers["ns_per_cell_step"] = r.simulate_s * 1e9 / (double(plan.cells) * double(r.steps));
  m.numbers["wall_s_per_bio_s"] = r.simulate_s / bio_s;
  m.numbers["spikes"] = double(r.spikes);
  m.numbers["energy_j"] = r.energy_j;  // NaN -> null: no counter (energy_counter says why)
  m.fields["energy_counter"] = r.energy_counter;
  if (r.bytes_moved > 0) m.numbers["gb_per_s"] = r.bytes_moved / r.simulate_s / 1e9;
  if (r.flops > 0) m.numbers["gflop_per_s"] = r.flops / r.simulate_s / 1e9;
  if (r.flops > 0 && r.bytes_moved > 0) m.numbers["flop_per_byte"] = r.flops / r.bytes_moved;
  for (const auto& [k, v] : r.figures) m.numbers[k + "_per_s"] = v / r.simulate_s;
  for (const auto& [k, v] : r.values) m.numbers[k] = v;
  for (const auto& [k, v] : r.details) m.numbers[k] = v;
  for (const auto& [k, v] : r.fields) m.fields[k] = v;
  // The populations' layout (names in index order, first neuron, size), for analyses of the spike files.
  std::string names;
  for (const auto& p : r.populations) {
    m.numbers["rate_hz_" + p.name] = p.rate_hz;
    m.numbers["isi_cv_" + p.name] = p.isi_cv;
    m.numbers["first_" + p.name] = double(p.first);
    m.numbers["neurons_" + p.name] = double(p.neurons);
    names += (names.empty() ? "" : ",") + p.name;
  }
  if (!names.empty()) m.fields["populations"] = names;
  if (!r.strategy.empty()) m.fields[Model::kStrategy] = r.strategy;
  m.complete = true;
}

// ranks.csv of a run split over ranks: one row per rank.
inline void write_rank_table(const std::filesystem::path& file, const RankTable& t) {
  std::string csv = fmt::format("{}\n", fmt::join(t.columns, ","));
  for (const auto& row : t.rows) csv += fmt::format("{}\n", fmt::join(row, ","));
  text::write_file_atomically(file, csv);
}

template <class Model>
void print_summary(const ExperimentConfig& cfg, const typename Model::Plan& plan, const RunResult& r,
                   const std::string& backend, Precision precision, const std::filesystem::path& out_dir, int ranks) {
  const double bio_s = double(r.steps) * plan.dt_ms / 1000.0;
  fmt::print("{}: {}, {} {}, {} {}, {} steps of {} ms on {}{} ({}), {}\n", cfg.name, cfg.model, plan.cells,
             Model::kCells, r.connections, Model::kConnections, r.steps, plan.dt_ms,
             ranks > 1 ? fmt::format("{} x ", ranks) : "", backend, to_string(precision),
             backend_facts(backend).description);
  if (r.generate_s > 0) fmt::print("  generate {:.3f} s (on {})\n", r.generate_s, backend);
  fmt::print("  network {:.3f} s, setup {:.3f} s, simulate {:.3f} s ({:.3f} ns/cell-step, {:.3f} s per bio s), "
             "output {:.3f} s\n",
             plan.network_build_s, r.setup_s, r.simulate_s, r.simulate_s * 1e9 / (double(plan.cells) * r.steps),
             r.simulate_s / bio_s, r.output_s);
  for (const auto& [k, v] : r.figures) fmt::print("  {}: {:.3e} per s\n", k, v / r.simulate_s);
  for (const auto& [k, v] : r.values) fmt::print("  {}: {:.6g}\n", k, v);
  for (const auto& p : r.populations)
    fmt::print("  {:<4} {:>7} neurons  {:8.3f} Hz  ISI CV {:.3f}\n", p.name, p.neurons, p.rate_hz, p.isi_cv);
  if (!r.strategy.empty()) fmt::print("  {}: {}\n", Model::kStrategy, r.strategy);
  for (const auto& [k, v] : r.fields) fmt::print("  {}: {}\n", k, v);
  for (const auto& line : r.report) fmt::print("  {}\n", line);
  fmt::print("  spikes: {}; output in {}\n", r.spikes, out_dir.string());
}

// A run under mpirun of a model whose simulation partitions itself over the ranks (its plan carries them, set by
// the plan change): every rank runs; only the writing rank writes run.json, traces, spikes and ranks.csv and prints
// the summary.
struct RunScope {
  bool writes = true;
  int ranks = 0;  // the ranks of a run under mpirun (run.json's "ranks"); 0: a single process
};

struct NoPlanChange {
  template <class Plan>
  void operator()(Plan&) const {}
};

// run.json of a run that stopped before its end: "complete" stays false, "failed" says why.
inline void record_failure(const OutputFolder& folder, RunManifest& m, const std::string& why, std::int64_t step) {
  m.fields["failed"] = why;
  if (step >= 0) m.numbers["failed_after_step"] = double(step);
  write_manifest(folder.work() / "run.json", m);
}

template <class Model, class PlanChange = NoPlanChange>
int run_experiment(const ExperimentConfig& cfg, const std::string& backend, Precision precision, const RunOptions& o,
                   PlanChange change = {}, RunScope scope = {}) {
  // One process on a CPU backend holds the whole state in host memory (ranks hold their part: not counted)
  const bool state_on_host = scope.ranks == 0 && !backend_facts(backend).gpu;
  typename Model::Plan plan =
      make_bounded_plan<Model>(cfg, PlanRequest{o.size, o.density, o.steps, o.variant, state_on_host, o.warmup_steps});
  change(plan);
  const auto target = o.out_dir.empty() ? std::filesystem::path("out") / cfg.name : std::filesystem::path(o.out_dir);
  RunRequest request;
  request.write_trace = true;  // into files where out_dir is set; a partitioned run's other ranks still sample
  request.write_spikes = scope.writes && plan.record_spikes;
  request.keep_spikes = plan.record_spikes || Model::kSpikeStatistics;
  request.progress = scope.ranks == 0;
  request.finite_check_every = o.finite_check_every;
  // The memory the run needs is stated, and a run that does not fit refused, before any output exists. The writing
  // rank's request names its folder already: a model that computes more for its files plans that too.
  if (scope.writes) request.out_dir = target;
  const MemoryStatement memory = memory_on<Model>(plan, backend, precision, request);
  RunManifest m = start_manifest<Model>(cfg, plan, backend, precision);
  m.numbers["host_bytes"] = plan.host_bytes + memory.host_bytes;
  m.numbers["device_bytes"] = memory.device_bytes;
  if (scope.ranks > 0) m.numbers["ranks"] = scope.ranks;
  std::optional<OutputFolder> folder;  // the writing rank's: locked, written beside the target, moved at the end
  if (scope.writes) {
    folder.emplace(target);
    write_manifest(folder->work() / "run.json", m);
  }
  if (folder) request.out_dir = folder->work();
  RunResult r;
  try {
    r = run_on<Model>(plan, backend, precision, request);
    if (folder) {
      finish_manifest<Model>(m, plan, r);
      if (!r.rank_table.rows.empty()) write_rank_table(folder->work() / "ranks.csv", r.rank_table);
      m.fields["files"] = describe_output_files(folder->work());
      write_manifest(folder->work() / "run.json", m);
    }
  } catch (const NonFiniteState& e) {  // run.json says why the run is not complete; the message says where it is
    if (!folder) throw;
    record_failure(*folder, m, e.what(), e.step);
    throw NonFiniteState(fmt::format("{}; {}", e.what(), folder->kept_note()), e.step);
  } catch (const RunInterrupted& e) {
    if (!folder) throw;
    record_failure(*folder, m, e.what(), e.step);
    throw RunInterrupted(fmt::format("{}; {}", e.what(), folder->kept_note()), e.signal, e.step);
  } catch (const std::exception& e) {  // any other failure: its own message, then where the files are
    if (!folder) throw;
    try {
      record_failure(*folder, m, e.what(), -1);
    } catch (const std::exception&) {  // the error being reported is the one that matters
    }
    fmt::print(stderr, "kbrain: the run did not finish; {}\n", folder->kept_note());
    throw;
  }
  if (!folder) return 0;
  folder->publish();  // its error names the folder the complete run is in
  print_summary<Model>(cfg, plan, r, backend, precision, folder->target(), scope.ranks);
  if (!o.no_plots) draw_pictures(folder->target());
  return 0;
}

}  // namespace kbrain
