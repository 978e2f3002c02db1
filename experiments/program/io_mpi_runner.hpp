#pragma once
// `kbrain run` under mpirun (docs/mpi.md): one IoRunPlan on K ranks. Each rank generates its own cells' incoming
// junctions, builds its communication plan and steps its cells (models/olive/distributed/io_mpi_simulation.hpp); traces and spikes
// are gathered on rank 0 at the drain points, which writes the same files as a single-process run. Phase times are
// measured per rank; with phase_timing every phase of the step is fenced and timed on its own (IoStepPhases).
// Only compiled with KBRAIN_ENABLE_MPI.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include "core/inputs/stimulus.hpp"
#include "core/parallel/mpi_plan.hpp"
#include "core/parallel/partition.hpp"
#include "core/recorders/trace_recorder.hpp"
#include "core/timing/stopwatch.hpp"
#include "experiments/program/io_mpi_dispatch.hpp"
#include "models/olive/olive_plan.hpp"
#include "models/runtime/model_runner.hpp"
#include "models/olive/distributed/io_mpi_setup.hpp"
#include "models/olive/distributed/io_mpi_simulation.hpp"
#include "models/olive/cell/io_sampler.hpp"

namespace kbrain {

template <class Backend, class Real>
IoMpiRunResult run_io_mpi(const olive::OlivePlan& plan, const RunRequest& request, PartitionChoice choice, bool phase_timing, HaloExchange exchange,
                          MPI_Comm comm) {
  using Exec = typename Backend::execution_space;
  const auto& cfg = *plan.config;
  const int me = mpi::rank(comm), ranks = mpi::size(comm);
  const std::int64_t steps = plan.steps;
  IoMpiRunResult out;
  RunResult& res = out.run;
  res.backend = Backend::name;
  res.precision = std::is_same<Real, float>::value ? "float" : "double";
  res.steps = steps;
  RankPhaseTimes mine;
  mine.rank = me;

  // ---------------- partition, own rows (generate), plan, setup ----------------
  MPI_Barrier(comm);
  Stopwatch setup;
  const Partition part = olive::make_io_partition(*plan.network, plan.generator.get(), choice, ranks);
  out.partition = part.kind_name();
  out.grid = part.grid;
  olive::RankSetupTimes st;
  const RankPlan<typename Backend::memory_space> rank_plan =
      olive::make_rank_plan<Exec>(*plan.network, plan.generator.get(), part, comm, st);
  const CommPlan& cplan = rank_plan.plan;
  mine.generate_s = st.generate_s;
  mine.plan_s = st.plan_s;
  mine.cells = cplan.owned;
  mine.interior = cplan.interior;
  mine.halo = cplan.halo;
  mine.neighbours = static_cast<std::int64_t>(cplan.recv_ranks.size());
  mine.junctions = st.junctions;
  mine.sent = static_cast<std::int64_t>(cplan.send_local.size());

  auto stimulus = make_stimulus(cfg.stimulus, plan.network->cells, steps);
  olive::IoMpiSimulation<Backend, Real> sim(plan.params, rank_plan, plan.g_cal, comm, exchange);
  sim.set_phase_fences(phase_timing);
  out.exchange = halo_exchange_mode_name(sim.exchange_mode());
  if (plan.record_spikes || request.write_spikes) sim.enable_spikes(cfg.record.spike_threshold);

  // Traces: rank 0 writes; every rank samples the traced cells it owns; rows are assembled on rank 0.
  const std::int64_t every = std::max<std::int64_t>(1, cfg.record.every);
  const bool tracing = !request.out_dir.empty() && request.write_trace && !plan.trace_vars.empty() && !plan.trace_cells.empty();
  std::optional<TraceRecorder> trace;
  std::optional<SpikeRecorder> spike_file;
  std::optional<olive::IoSampler<Exec, Real>> sampler;
  std::vector<int> positions;                 // this rank's entries' positions in a full trace row
  std::vector<int> all_counts, all_displs;    // rank 0: per-rank widths
  std::vector<int> all_positions;             // rank 0: every rank's positions, concatenated
  int full_width = 0, slots = 1;
  if (tracing) {
    const auto ncells = static_cast<int>(plan.trace_cells.size());
    full_width = static_cast<int>(plan.trace_vars.size()) * ncells;
    slots = static_cast<int>(std::clamp<std::int64_t>((8 << 20) / full_width, 1, 4096));
    std::vector<std::int64_t> local_ids;
    std::vector<int> cell_index;
    std::unordered_map<std::int64_t, std::int64_t> local_of;  // traced cells this rank owns -> local id
    for (int c = 0; c < ncells; ++c)
      if (part.owner[plan.trace_cells[c]] == me) local_of.emplace(plan.trace_cells[c], -1);
    for (std::int64_t l = 0; l < cplan.owned; ++l) {
      const auto it = local_of.find(cplan.global[l]);
      if (it != local_of.end()) it->second = l;
    }
    for (int c = 0; c < ncells; ++c) {
      const auto g = plan.trace_cells[c];
      if (part.owner[g] != me) continue;
      local_ids.push_back(local_of.at(g));
      cell_index.push_back(c);
    }
    for (std::size_t v = 0; v < plan.trace_vars.size(); ++v)
      for (int c : cell_index) positions.push_back(static_cast<int>(v) * ncells + c);
    sampler.emplace(plan.trace_vars, local_ids, slots);
    int w = static_cast<int>(positions.size());
    all_counts.resize(ranks);
    MPI_Gather(&w, 1, MPI_INT, all_counts.data(), 1, MPI_INT, 0, comm);
    all_displs.assign(ranks, 0);
    int total = 0;
    for (int q = 0; q < ranks; ++q) all_displs[q] = total, total += all_counts[q];
    if (me == 0) all_positions.resize(total);
    MPI_Gatherv(positions.data(), w, MPI_INT, all_positions.data(), all_counts.data(), all_displs.data(), MPI_INT, 0,
                comm);
    if (me == 0) {
      trace.emplace(request.out_dir, trace_spec_of(plan, std::is_same<Real, float>::value));
    }
  }
  if (me == 0 && !request.out_dir.empty() && request.write_spikes)
    spike_file.emplace(open_spike_files(request.out_dir, plan.record_csv, plan.record_binary));
  sim.fence();
  mine.setup_s = setup.seconds() - mine.generate_s - mine.plan_s;

  // ---------------- simulate; drains are collective (every rank reaches them at the same step) ----------------
  double output_s = 0;
  auto drain_all = [&](bool final_drain) {
    sim.fence();
    Stopwatch o;
    if (sampler && (final_drain || sampler->full())) {
      std::vector<std::int64_t> sample_steps;
      std::vector<double> mine_vals;
      sampler->drain([&](std::int64_t step, const double* v) {
        sample_steps.push_back(step);
        mine_vals.insert(mine_vals.end(), v, v + sampler->width());
      });
      const int nsamples = static_cast<int>(sample_steps.size());  // the same on every rank
      std::vector<int> counts(ranks), displs(ranks);
      for (int q = 0; q < ranks; ++q) counts[q] = all_counts.empty() ? 0 : all_counts[q] * nsamples;
      int total = 0;
      for (int q = 0; q < ranks; ++q) displs[q] = total, total += counts[q];
      std::vector<double> gathered(me == 0 ? total : 0);
      MPI_Gatherv(mine_vals.data(), static_cast<int>(mine_vals.size()), MPI_DOUBLE, gathered.data(), counts.data(),
                  displs.data(), MPI_DOUBLE, 0, comm);
      if (me == 0) {
        std::vector<double> row(full_width);
        for (int s = 0; s < nsamples; ++s) {
          for (int q = 0; q < ranks; ++q)
            for (int k = 0; k < all_counts[q]; ++k)
              row[all_positions[all_displs[q] + k]] = gathered[displs[q] + s * all_counts[q] + k];
          trace->record(sample_steps[s], row.data());
        }
      }
    }
    if (sim.spike_drain_interval() > 0 && (final_drain || sim.spikes_due())) {
      const auto events = sim.drain_spikes();
      std::vector<std::int64_t> flat;
      for (const auto& e : events) flat.push_back(e.first), flat.push_back(e.second);
      int n = static_cast<int>(flat.size());
      std::vector<int> counts(ranks), displs(ranks);
      MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
      int total = 0;
      for (int q = 0; q < ranks; ++q) displs[q] = total, total += counts[q];
      std::vector<std::int64_t> all(me == 0 ? total : 0);
      MPI_Gatherv(flat.data(), n, MPI_INT64_T, all.data(), counts.data(), displs.data(), MPI_INT64_T, 0, comm);
      if (me == 0) {
        std::vector<std::pair<std::int64_t, std::int64_t>> merged;
        for (int k = 0; k + 1 < total; k += 2) merged.emplace_back(all[k], all[k + 1]);
        std::sort(merged.begin(), merged.end());
        res.spikes += static_cast<std::int64_t>(merged.size());
        if (request.keep_spikes) res.events.insert(res.events.end(), merged.begin(), merged.end());
        if (spike_file) spike_file->record(merged);
      }
    }
    output_s += o.seconds();
  };

  MPI_Barrier(comm);
  Stopwatch loop;
  for (std::int64_t n = 0; n < steps; ++n) {
    const double i_app = stimulus->uniform_current(n);
    const std::vector<double>* per_cell = stimulus->has_per_cell() ? stimulus->per_cell_current(n) : nullptr;
    sim.step(i_app, per_cell);
    const std::int64_t done = n + 1;
    if (sampler && done % every == 0) sampler->capture(sim.state(), done);
    if ((sampler && sampler->full()) || sim.spikes_due()) drain_all(false);
  }
  drain_all(true);
  const double total = loop.seconds();
  Stopwatch close;
  if (trace) trace->close();
  if (spike_file) spike_file->close();
  const olive::IoStepPhases& ph = sim.phases();
  mine.exchange_wait_s = ph.wait_s;
  mine.pack_post_s = ph.pack_s;
  const double simulate = total - std::min(total, output_s);
  mine.simulate_s = simulate;
  mine.phase_timing = ph.fenced;
  if (ph.fenced) {  // the fenced phases' own times
    mine.interior_s = ph.interior_s;
    mine.border_s = ph.border_s;
    mine.unpack_s = ph.unpack_s;
    mine.compute_s = ph.compute_s();
    mine.exchange_s = ph.exchange_s();
    mine.exchange_fraction = simulate > 0 ? mine.exchange_s / simulate : 0.0;
  } else {
    mine.compute_s = simulate - std::min(simulate, mine.exchange_wait_s);
  }
  mine.output_s = output_s + close.seconds();
  MPI_Barrier(comm);
  mine.wall_s = setup.seconds();

  // ---------------- per-rank phases to rank 0 ----------------
  const auto mine_arr = mine.to_array();
  std::vector<double> all(me == 0 ? ranks * RankPhaseTimes::kNumbers : 0);
  MPI_Gather(mine_arr.data(), RankPhaseTimes::kNumbers, MPI_DOUBLE, all.data(), RankPhaseTimes::kNumbers, MPI_DOUBLE,
             0, comm);
  if (me == 0) {
    for (int q = 0; q < ranks; ++q)
      out.ranks.push_back(RankPhaseTimes::from_array(all.data() + q * RankPhaseTimes::kNumbers));
    for (const auto& t : out.ranks) {
      res.generate_s = std::max(res.generate_s, t.generate_s);
      res.setup_s = std::max(res.setup_s, t.plan_s + t.setup_s);
      res.output_s = std::max(res.output_s, t.output_s);
      res.connections += t.junctions;
    }
  }
  res.simulate_s = simulate;  // rank 0's loop time (all ranks are in lock-step through the halo exchange)
  double simulate_max = 0;
  MPI_Reduce(&simulate, &simulate_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  if (me == 0) res.simulate_s = simulate_max;
  return out;
}

}  // namespace kbrain
