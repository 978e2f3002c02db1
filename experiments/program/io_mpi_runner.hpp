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
#include <vector>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include "core/inputs/stimulus.hpp"
#include "core/parallel/mpi_plan.hpp"
#include "core/parallel/partition.hpp"
#include "core/timing/stopwatch.hpp"
#include "experiments/program/io_mpi_dispatch.hpp"
#include "experiments/program/io_mpi_gather.hpp"
#include "models/olive/olive_plan.hpp"
#include "models/runtime/model_runner.hpp"
#include "models/olive/distributed/io_mpi_setup.hpp"
#include "models/olive/distributed/io_mpi_simulation.hpp"

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

  const std::int64_t every = std::max<std::int64_t>(1, cfg.record.every);
  RankTraceGather<Exec, Real> traces(plan, request, part, cplan, comm);  // collective
  std::optional<SpikeRecorder> spike_file;
  if (me == 0 && !request.out_dir.empty() && request.write_spikes)
    spike_file.emplace(open_spike_files(request.out_dir, plan.record_csv, plan.record_binary));
  sim.fence();
  mine.setup_s = setup.seconds() - mine.generate_s - mine.plan_s;

  // ---------------- simulate; drains are collective (every rank reaches them at the same step) ----------------
  double output_s = 0;
  auto drain_all = [&](bool final_drain) {
    sim.fence();
    Stopwatch o;
    if (traces.active() && (final_drain || traces.full())) traces.drain();
    if (sim.spike_drain_interval() > 0 && (final_drain || sim.spikes_due())) {
      const auto merged = gather_spikes(sim.drain_spikes(), comm);  // rank 0; empty elsewhere
      res.spikes += static_cast<std::int64_t>(merged.size());
      if (request.keep_spikes) res.events.insert(res.events.end(), merged.begin(), merged.end());
      if (spike_file) spike_file->record(merged);
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
    if (traces.active() && done % every == 0) traces.capture(sim.state(), done);
    if (traces.full() || sim.spikes_due()) drain_all(false);
  }
  drain_all(true);
  const double total = loop.seconds();
  Stopwatch close;
  traces.close();
  if (spike_file) spike_file->close();
  split_loop_time(mine, sim.phases(), total - std::min(total, output_s));
  mine.output_s = output_s + close.seconds();
  MPI_Barrier(comm);
  mine.wall_s = setup.seconds();
  gather_rank_times(mine, out, comm);  // collective
  return out;
}

}  // namespace kbrain
