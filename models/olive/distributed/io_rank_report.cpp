#include "models/olive/distributed/io_rank_report.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

namespace kbrain::olive {

namespace {

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

// The run's phases: the slowest rank's (all ranks are in lock-step through the halo exchange); setup includes the
// plan; junctions: every rank's incoming ones.
void set_run_times(RunResult& r, const std::vector<RankPhaseTimes>& ranks, bool generated) {
  r.generate_s = r.setup_s = r.simulate_s = r.output_s = r.connections = 0;
  for (const auto& t : ranks) {
    if (generated) r.generate_s = std::max(r.generate_s, t.generate_s);
    r.setup_s = std::max(r.setup_s, t.plan_s + t.setup_s);
    r.simulate_s = std::max(r.simulate_s, t.simulate_s);
    r.output_s = std::max(r.output_s, t.output_s);
    r.connections += double(t.junctions);
  }
}

// run.json: the maxima over ranks and, per rank, its simulate / compute / wait (with phase timing, also its exchange).
void set_manifest_numbers(RunResult& r, const std::vector<RankPhaseTimes>& ranks, const RankSummary& s, bool fenced) {
  r.values = {{"plan_s", s.plan_max},           {"compute_s", s.compute_max},
              {"exchange_wait_s", s.wait_max},   {"exchange_wait_mean_s", s.wait_mean},
              {"pack_post_s", s.pack_max},       {"halo_values_per_step", double(s.halo_total)}};
  if (fenced) {
    r.values.emplace_back("exchange_s", s.exchange_max);
    r.values.emplace_back("exchange_fraction_max", s.fraction_max);
    r.values.emplace_back("exchange_fraction_mean", s.fraction_mean);
  }
  for (const auto& t : ranks) {
    const std::string q = fmt::format("rank{}_", t.rank);
    r.details.emplace_back(q + "simulate_s", t.simulate_s);
    r.details.emplace_back(q + "compute_s", t.compute_s);
    r.details.emplace_back(q + "exchange_wait_s", t.exchange_wait_s);
    if (!fenced) continue;
    r.details.emplace_back(q + "exchange_s", t.exchange_s);
    r.details.emplace_back(q + "exchange_fraction", t.exchange_fraction);
  }
}

// ranks.csv: one row per rank. The fenced-phase columns (unpack_s ... exchange_fraction) are empty without
// --phase-timing.
RankTable rank_table(const std::vector<RankPhaseTimes>& ranks) {
  RankTable table;
  table.columns = {"rank",       "cells",           "interior",    "halo",      "neighbours", "sent",
                   "junctions",  "generate_s",      "plan_s",      "setup_s",   "simulate_s", "compute_s",
                   "exchange_wait_s", "pack_post_s", "output_s",   "wall_s",    "phase_timing", "unpack_s",
                   "interior_s", "border_s",        "exchange_s",  "exchange_fraction"};
  auto s6 = [](double x) { return fmt::format("{:.6f}", x); };
  for (const auto& t : ranks) {
    std::vector<std::string> row = {
        std::to_string(t.rank),      std::to_string(t.cells),      std::to_string(t.interior),
        std::to_string(t.halo),      std::to_string(t.neighbours), std::to_string(t.sent),
        std::to_string(t.junctions), s6(t.generate_s),             s6(t.plan_s),
        s6(t.setup_s),               s6(t.simulate_s),             s6(t.compute_s),
        s6(t.exchange_wait_s),       s6(t.pack_post_s),            s6(t.output_s),
        s6(t.wall_s),                t.phase_timing ? "fenced" : "off"};
    for (double x : {t.unpack_s, t.interior_s, t.border_s, t.exchange_s, t.exchange_fraction})
      row.push_back(t.phase_timing ? s6(x) : "");
    table.rows.push_back(std::move(row));
  }
  return table;
}

// The printed per-rank tables: phases in seconds and, with phase timing, the fenced phases in ms per step.
std::vector<std::string> rank_report(const std::vector<RankPhaseTimes>& ranks, const RankSummary& s, bool fenced,
                                     std::int64_t steps) {
  std::vector<std::string> lines = {
      "| rank | cells | interior | halo | generate s | plan s | simulate s | compute s | exchange wait s | output s |"};
  for (const auto& t : ranks)
    lines.push_back(fmt::format("| {} | {} | {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} |", t.rank,
                                t.cells, t.interior, t.halo, t.generate_s, t.plan_s, t.simulate_s, t.compute_s,
                                t.exchange_wait_s, t.output_s));
  if (!fenced) return lines;
  lines.push_back("fenced phases (--phase-timing), ms per step; exchange = pack+copy+post + wait + copy+unpack:");
  lines.push_back("| rank | step | interior | border | compute | pack+copy+post | wait | copy+unpack | exchange | "
                  "exchange % of step |");
  const double per_step = 1000.0 / double(std::max<std::int64_t>(1, steps));
  for (const auto& t : ranks)
    lines.push_back(fmt::format("| {} | {:.4f} | {:.4f} | {:.4f} | {:.4f} | {:.4f} | {:.4f} | {:.4f} | {:.4f} | "
                                "{:.1f} |",
                                t.rank, t.simulate_s * per_step, t.interior_s * per_step, t.border_s * per_step,
                                t.compute_s * per_step, t.pack_post_s * per_step, t.exchange_wait_s * per_step,
                                t.unpack_s * per_step, t.exchange_s * per_step, 100.0 * t.exchange_fraction));
  lines.push_back(fmt::format("exchange fraction of the step: {:.1f} % max over ranks, {:.1f} % mean",
                              100.0 * s.fraction_max, 100.0 * s.fraction_mean));
  return lines;
}

}  // namespace

void report_ranks(RunResult& r, const std::vector<RankPhaseTimes>& ranks, const IoRankLayout& layout) {
  const bool fenced = !ranks.empty() && ranks.front().phase_timing;
  const RankSummary s = summarise_ranks(ranks);
  set_run_times(r, ranks, layout.generated);
  r.fields = {{"partition", layout.partition},
              {"halo_exchange", layout.exchange},
              {"exchange_buffers", exchange_description(layout.exchange)},
              {"phase_timing", fenced ? "fenced" : "off"}};
  set_manifest_numbers(r, ranks, s, fenced);
  r.rank_table = rank_table(ranks);
  r.report = rank_report(ranks, s, fenced, r.steps);
}

}  // namespace kbrain::olive
