#pragma once
// `kbrain compare` for any model (cmd_compare.cpp chooses the model): for every point of the sweep (densities x
// sizes x variants) one plan, one reference run (serial double, or the first backend in double), then every backend x
// precision; one row each with the common columns (size, phase times, ns per cell-step, wall s per bio s, speedups)
// and the model's own agreement columns (Model::agreement_columns / agreement). Saved after every row
// (compare.partial.*), published complete at the end (compare.{md,csv,json}). Each run's memory is checked before it
// starts; one that does not fit is a row that says so.
#include <algorithm>
#include <string_view>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "core/report/comparison_table.hpp"
#include "experiments/program/backend_facts.hpp"
#include "core/detected.hpp"
#include "experiments/program/build_info.hpp"
#include "experiments/program/compare_peer.hpp"
#include "experiments/program/compare_sweep.hpp"
#include "models/runtime/memory_statement.hpp"
#include "models/runtime/plausible_bounds.hpp"
#include "models/runtime/run_dispatch.hpp"

namespace kbrain {

// Whether a model's steps are biological time (dt): applications whose steps are not (a training input, one matrix
// product) declare `static constexpr bool kBiologicalTime = false` and get no per-cell-step or per-bio-s columns.
template <class M>
using biological_time_t = decltype(M::kBiologicalTime);
template <class Model>
constexpr bool biological_time() {
  if constexpr (is_detected_v<biological_time_t, Model>) return Model::kBiologicalTime;
  return true;
}

// Whether a model counts the bytes its steps must move (RunResult::bytes_moved): those declare
// `static constexpr bool kStatesBytesMoved = true` and get the achieved GB/s and "% of copy" columns.
template <class M>
using states_bytes_moved_t = decltype(M::kStatesBytesMoved);
template <class Model>
constexpr bool states_bytes_moved() {
  if constexpr (is_detected_v<states_bytes_moved_t, Model>) return Model::kStatesBytesMoved;
  return false;
}

// Whether a plan's model counts its floating-point operations (RunResult::flops): those declare
// `static bool states_flops(const Plan&)` and get GFLOP/s and, with bytes, the arithmetic intensity (flop/B).
template <class M>
using states_flops_t = decltype(M::states_flops(std::declval<const typename M::Plan&>()));
template <class Model>
bool states_flops(const typename Model::Plan& plan) {
  if constexpr (is_detected_v<states_flops_t, Model>) return Model::states_flops(plan);
  return false;
}

// Models whose runs give population statistics (spiking networks): those `--peer` can add rows to.
template <class M>
using peer_populations_t = decltype(M::kSpikeStatistics);

template <class Model>
std::vector<ReportColumn> compare_columns(const typename Model::Plan& plan) {
  std::vector<ReportColumn> c = {{Model::kCells, Model::kCells, "int"},
                                 {Model::kConnections, Model::kConnections, "int"},
                                 {"generate_s", "generate s", "sig3"},
                                 {"setup_s", "setup s", "sig3"},
                                 {"simulate_s", "simulate s", "sig3"},
                                 {"output_s", "output s", "sig3"}};
  if constexpr (biological_time<Model>()) {
    c.push_back({"ns_per_cell_step", "ns/cell-step", "sig3"});
    c.push_back({"wall_s_per_bio_s", "wall s per bio s", "sig3"});
  }
  c.push_back({"energy_j", "J", "sig3"});
  if constexpr (biological_time<Model>()) c.push_back({"nj_per_cell_step", "nJ/cell-step", "sig3"});
  if constexpr (states_bytes_moved<Model>()) {
    c.push_back({"gb_per_s", "GB/s", "sig3"});
    c.push_back({"copy_pct", "of copy", "pct"});
  }
  if (states_flops<Model>(plan)) {
    c.push_back({"gflop_per_s", "GFLOP/s", "sig3"});
    if constexpr (states_bytes_moved<Model>()) c.push_back({"flop_per_byte", "flop/B", "sig3"});
  }
  if (!plan.config->compare.published.empty()) c.push_back({"published_s", "study s", "sig3"});
  for (auto& col : Model::agreement_columns(plan)) c.push_back(std::move(col));
  return c;
}

template <class Model>
ComparisonTableRow compare_row(const typename Model::Plan& plan, double density, const RunRequest& request,
                               const RunResult& r, const RunResult& ref, bool is_reference) {
  ComparisonTableRow row;
  row.size_label = plan.size_label;
  row.backend = r.backend;
  row.precision = r.precision;
  row.steps = r.steps;
  row.steps_requested = plan.steps;
  row.simulate_s = r.simulate_s;
  const double bio_s = double(r.steps) * plan.dt_ms / 1000.0;
  // generate: a network built on the backend itself (NaN, "—", where the model builds none there)
  row.values = {ReportValue::num(double(plan.cells)), ReportValue::num(r.connections),
                ReportValue::num(r.generate_s > 0 ? r.generate_s : std::nan("")), ReportValue::num(r.setup_s),
                ReportValue::num(r.simulate_s), ReportValue::num(r.output_s)};
  if constexpr (biological_time<Model>()) {
    row.values.push_back(ReportValue::num(r.simulate_s * 1e9 / (double(plan.cells) * double(r.steps))));
    row.values.push_back(ReportValue::num(r.simulate_s / bio_s));
  }
  // Energy of the simulate phase (GPU: NVML; CPU: RAPL), "n/a" where the machine has no counter (note says why).
  const bool measured = std::isfinite(r.energy_j);
  row.values.push_back(measured ? ReportValue::num(r.energy_j) : ReportValue::str("n/a"));
  if constexpr (biological_time<Model>())
    row.values.push_back(measured ? ReportValue::num(r.energy_j * 1e9 / (double(plan.cells) * double(r.steps)))
                                  : ReportValue::str("n/a"));
  if constexpr (states_bytes_moved<Model>()) {  // the model's bytes over the simulate time, against the copy yardstick
    const double rate = r.bytes_moved > 0 && r.simulate_s > 0 ? r.bytes_moved / r.simulate_s : std::nan("");
    row.values.push_back(ReportValue::num(rate / 1e9));
    row.values.push_back(ReportValue::num(100.0 * rate / backend_copy_bytes_per_second(r.backend)));
  }
  if (states_flops<Model>(plan)) {  // the model's operations over the simulate time, and over the bytes it moved
    row.values.push_back(ReportValue::num(r.flops > 0 && r.simulate_s > 0 ? r.flops / r.simulate_s / 1e9 : std::nan("")));
    if constexpr (states_bytes_moved<Model>())
      row.values.push_back(ReportValue::num(r.flops > 0 && r.bytes_moved > 0 ? r.flops / r.bytes_moved : std::nan("")));
  }
  const CompareConfig& compare = plan.config->compare;
  if (!compare.published.empty()) {  // the study's time is for the file's steps
    const double study = r.steps == plan.config->steps ? compare.published_s(r.backend, plan.cells, density)
                                                       : std::numeric_limits<double>::quiet_NaN();
    row.values.push_back(std::isnan(study) ? ReportValue::missing() : ReportValue::num(study));
  }
  for (auto& v : Model::agreement(plan, request, r, ref, is_reference)) row.values.push_back(std::move(v));
  row.note = r.strategy;
  return row;
}

// Why a run of `plan` on `backend` in `precision` would not fit (the runner's own check,
// models/runtime/run_dispatch.hpp, asked before the run starts), or "" when it fits.
template <class Model>
std::string memory_refusal(const typename Model::Plan& plan, const std::string& backend, Precision precision,
                           const RunRequest& request) {
  try {
    memory_on<Model>(plan, backend, precision, request);
  } catch (const ConfigError& e) {  // memory_on refuses for memory only
    return e.what();
  }
  return {};
}

inline constexpr std::string_view kNotRun = "not run: ";  // how an unfit row's note begins

// The row of a run that was not started because it does not fit: its size, backend and precision, the refusal as
// its note and no values (each column is left empty once the table's columns are known: pad_unfit_rows).
inline ComparisonTableRow unfit_row(const std::string& size_label, const std::string& backend, Precision precision,
                                    const std::string& why) {
  ComparisonTableRow row;
  row.size_label = size_label;
  row.backend = backend;
  row.precision = to_string(precision);
  row.note = std::string(kNotRun) + why;
  fmt::print(stderr, "[compare]   {:<7} {:<6} not run: does not fit\n", backend, to_string(precision));
  return row;
}
inline void pad_unfit_rows(ComparisonTable& table) {
  for (auto& row : table.rows)
    if (row.values.size() < table.columns.size()) row.values.resize(table.columns.size(), ReportValue::missing());
}

// One point of the sweep: its plan, the reference run, then every backend x precision, each row saved as it comes.
// A size that does not fit (its plan's host arrays, or a run's memory) is a row saying so, and the sweep goes on.
template <class Model>
void compare_point(const ExperimentConfig& cfg, const CompareSweep& sweep, const PlanRequest& at,
                   const std::string& ref_backend, ComparisonTable& table) {
  auto save_row = [&](ComparisonTableRow row) {
    table.rows.push_back(std::move(row));
    pad_unfit_rows(table);
    save_comparison(sweep.out_dir, table, false);
  };
  std::optional<typename Model::Plan> planned;
  try {
    planned.emplace(make_bounded_plan<Model>(cfg, at));
  } catch (const NotEnoughMemory& e) {
    const std::string label = fmt::format("{}{}", at.size > 0 ? std::to_string(at.size) : std::string("file's size"),
                                          at.density > 0 ? fmt::format(" d={}", at.density) : std::string());
    fmt::print(stderr, "[compare] {}: does not fit: {}\n", label, e.what());
    for (const auto& b : sweep.backends)
      for (const Precision prec : sweep.precisions) save_row(unfit_row(label, b, prec, e.what()));
    return;
  }
  const typename Model::Plan& plan = *planned;
  table.dt_ms = biological_time<Model>() ? plan.dt_ms : 0;
  if (table.columns.empty()) table.columns = compare_columns<Model>(plan);
  RunRequest request;
  request.probe_cells = Model::probe_cells(plan);
  request.probe_every = Model::kProbeEvery;
  request.keep_spikes = true;
  request.finite_check_every = sweep.finite_check_every;
  fmt::print(stderr, "[compare] {} {} ({}), {:.0f} {}\n", plan.cells, Model::kCells, plan.size_label,
             plan.connections, Model::kConnections);
  auto steps_for = [&](const std::string& b) {
    return budget_steps(backend_facts(b), static_cast<std::int64_t>(plan.work_per_step), plan.steps, sweep.budget);
  };
  typename Model::Plan ref_plan = plan;
  ref_plan.steps = steps_for(ref_backend);
  const std::string ref_refusal = memory_refusal<Model>(ref_plan, ref_backend, Precision::Double, request);
  const RunResult ref = ref_refusal.empty() ? run_on<Model>(ref_plan, ref_backend, Precision::Double, request)
                                            : RunResult{};
  for (const auto& b : sweep.backends)
    for (const Precision prec : sweep.precisions) {
      const bool is_reference = b == ref_backend && prec == Precision::Double;
      if (!ref_refusal.empty()) {  // no reference to agree with: no row of this size runs
        save_row(unfit_row(plan.size_label, b, prec,
                           is_reference ? ref_refusal
                                        : fmt::format("the reference run ({} double) does not fit: {}", ref_backend,
                                                      ref_refusal)));
        continue;
      }
      RunResult r;
      if (is_reference) {
        r = ref;
      } else {
        typename Model::Plan p = plan;
        p.steps = steps_for(b);
        const std::string refusal = memory_refusal<Model>(p, b, prec, request);
        if (!refusal.empty()) {
          save_row(unfit_row(plan.size_label, b, prec, refusal));
          continue;
        }
        r = run_on<Model>(p, b, prec, request);
      }
      ComparisonTableRow row = compare_row<Model>(plan, at.density, request, r, ref, is_reference);
      const std::pair<std::string, std::string> energy("energy on " + b, r.energy_counter);  // once per backend
      if (std::none_of(table.hardware.begin(), table.hardware.end(), [&](const auto& h) { return h.first == energy.first; }))
        table.hardware.push_back(energy);
      if (ref_backend != "serial") row.note += (row.note.empty() ? "" : "; ") + ("reference: " + ref_backend + " double");
      fmt::print(stderr, "[compare]   {:<7} {:<6} {:>8} steps  {:.4g} ns/cell-step\n", b, to_string(prec), r.steps,
                 r.simulate_s * 1e9 / (double(plan.cells) * double(r.steps)));
      save_row(std::move(row));
    }
  if (sweep.peer.empty() || !ref_refusal.empty()) return;
  if constexpr (is_detected_v<peer_populations_t, Model>) {  // spiking models (check_peer refused the others)
    const std::filesystem::path work =
        std::filesystem::temp_directory_path() / fmt::format("kbrain_peer_{}_{}", ::getpid(), plan.size_label);
    bool failed = false;  // a failed run's log is kept (its note names it)
    for (const Precision prec : sweep.precisions) {
      const PeerOutcome o = run_peer(sweep.peer, cfg, at.size, plan.steps, sweep.peer_threads, to_string(prec), work);
      if (!o.ran) fmt::print("peer {} {}: {}\n", sweep.peer, o.skipped ? "skipped" : "failed", o.reason);
      save_row(peer_row(o, sweep.peer, plan.size_label, to_string(prec), plan.steps, plan.dt_ms, table.columns,
                        Model::kCells, Model::kConnections, ref.populations));
      failed = failed || (!o.ran && !o.skipped);
      if (o.skipped) break;  // one row says why
    }
    std::error_code ec;
    if (!failed) std::filesystem::remove_all(work, ec);
  }
}

template <class Model>
int compare_experiment(const ExperimentConfig& cfg, const CompareSweep& sweep) {
  const std::string ref_backend = reference_backend(sweep.backends);
  ComparisonTable table;
  table.experiment = cfg.name;
  table.model = cfg.model;
  table.date = today_iso();
  table.commit = git_commit();
  table.command = command_line();
  table.kokkos = kokkos_description();
  for (const auto& b : sweep.backends) {
    std::string description = backend_facts(b).description;
    if constexpr (states_bytes_moved<Model>())
      description += fmt::format("; copy {:.1f} GB/s (measured here, the yardstick of \"of copy\")",
                                 backend_copy_bytes_per_second(b) / 1e9);
    table.hardware.emplace_back(b, description);
  }
  if (std::find(sweep.backends.begin(), sweep.backends.end(), ref_backend) == sweep.backends.end())
    table.hardware.emplace_back(ref_backend, backend_facts(ref_backend).description);
  if (!cfg.compare.published.empty()) table.hardware.emplace_back("study s", cfg.compare.published_hardware);

  for (const double density : sweep.densities)
    for (const std::int64_t size : sweep.sizes)
      for (const std::string& variant : sweep.variants)
        compare_point<Model>(cfg, sweep, PlanRequest{size, density, sweep.steps, variant}, ref_backend, table);
  // A sweep none of whose points fits has no result at all: refused like any input this machine cannot take.
  if (!table.rows.empty() && std::all_of(table.rows.begin(), table.rows.end(), [](const ComparisonTableRow& row) {
        return row.note.rfind(kNotRun, 0) == 0;
      }))
    throw ConfigError(fmt::format("no point of the comparison fits this machine; the first: {} {} {}: {}",
                                  table.rows.front().size_label, table.rows.front().backend,
                                  table.rows.front().precision, table.rows.front().note.substr(kNotRun.size())));
  pad_unfit_rows(table);
  publish_comparison(sweep.out_dir, table, sweep.target);
  if (sweep.result) *sweep.result = table;
  return 0;
}

}  // namespace kbrain
