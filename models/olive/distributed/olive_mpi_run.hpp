#pragma once
// One rank's part of a distributed IO run as the runner sees it (models/runtime/model_runner.hpp): a partitioned
// simulation. Construction is collective: the partition, this rank's rows (generated on the backend for
// uniform/gaussian3d) and communication plan (io_mpi_setup.hpp), and the halo exchange (io_mpi_simulation.hpp).
// Spikes are drained at the same steps on every rank and merged on rank 0; finish() gathers every rank's phase times
// to rank 0, which reports them (io_rank_report.hpp). Only compiled with KBRAIN_ENABLE_MPI.
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <mpi.h>

#include "core/inputs/stimulus.hpp"
#include "core/parallel/mpi_gather.hpp"
#include "core/parallel/partition.hpp"
#include "core/timing/stopwatch.hpp"
#include "models/olive/distributed/io_mpi_setup.hpp"
#include "models/olive/distributed/io_mpi_simulation.hpp"
#include "models/olive/distributed/io_rank_report.hpp"
#include "models/olive/distributed/io_rank_sampler.hpp"
#include "models/olive/distributed/olive_mpi_plan.hpp"
#include "models/olive/distributed/rank_memory_check.hpp"
#include "models/olive/distributed/rank_phase_times.hpp"
#include "models/olive/olive_run.hpp"
#include "models/runtime/memory_statement.hpp"
#include "models/runtime/run_request.hpp"
#include "models/runtime/run_result.hpp"

namespace kbrain::olive {

template <class Backend, class Real>
class OliveMpiRun {
 public:
  static constexpr bool kPartitioned = true;
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using Sampler = IoRankSampler<Exec, Real>;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;

  OliveMpiRun(const OliveMpiPlan& plan, const RunRequest& request, RunResult& res)
      : comm_(plan.comm), stimulus_(make_stimulus(plan.stimulus, plan.network->cells, plan.steps)) {
    barrier();  // the ranks set up together, so that their setup times compare
    wall_.restart();
    const Partition part =
        make_io_partition(*plan.network, plan.generator.get(), plan.partition, mpi::size(comm_));
    layout_.partition = fmt::format("{} {}x{}x{}", part.kind_name(), part.grid[0], part.grid[1], part.grid[2]);
    layout_.generated = plan.generator != nullptr;
    RankSetupTimes st;
    const RankPlan<Mem> rank_plan = make_rank_plan<Exec>(*plan.network, plan.generator.get(), part, comm_, st);
    sim_.emplace(plan.params, rank_plan, plan.g_cal, comm_, plan.halo_exchange);
    sim_->set_phase_fences(plan.phase_timing);
    layout_.exchange = halo_exchange_mode_name(sim_->exchange_mode());
    int spikes = detects_spikes(plan, request) ? 1 : 0;  // enable_spikes is collective: every rank or none
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, &spikes, 1, MPI_INT, MPI_MAX, comm_), "MPI_Allreduce");
    if (spikes) sim_->enable_spikes(plan.config->record.spike_threshold);
    res.generate_s = st.generate_s;
    const CommPlan& cp = sim_->plan();
    mine_.rank = mpi::rank(comm_);
    mine_.generate_s = st.generate_s;
    mine_.plan_s = st.plan_s;
    mine_.cells = cp.owned;
    mine_.interior = cp.interior;
    mine_.halo = cp.halo;
    mine_.neighbours = static_cast<std::int64_t>(cp.recv_ranks.size());
    mine_.junctions = st.junctions;
    mine_.sent = static_cast<std::int64_t>(cp.send_local.size());
    state_.plan = &cp;
    state_.comm = comm_;
    sim_->fence();
    barrier();  // the ranks start stepping together: no rank's first wait holds another's setup
  }

  // This rank's part (rank_memory.hpp): the single-process items for its own and halo cells and its junctions, and
  // what building its rows and communication plan adds. Collective: every rank's need is checked on every rank, and
  // a part that does not fit refused (exit 2) naming the rank, before any rank allocates it.
  static MemoryStatement memory(const OliveMpiPlan& plan, const RunRequest& request) {
    const RankPart part = rank_part_of(plan);
    IoMemoryShape s = olive_memory_shape<Backend, Real>(plan, request);
    s.cells = part.owned + part.halo;
    s.junctions = part.junctions;
    s.mesh_kernel = false;        // a rank's rows are a CSR, a mesh's too
    s.host_network_copy = false;  // the plan's host network is counted in its own host bytes
    s.tiled_lists = false;
    MemoryStatement m;
    m.device_bytes = double(total_bytes(plan_io_memory(s))) + rank_rows_bytes(part);
    m.host_bytes = rank_comm_plan_bytes(part) + 8.0 * double(s.sampled_values) +
                   (s.per_cell_stimulus ? 8.0 * double(plan.network->cells) : 0.0);
    const auto hw = Backend::describe();
    RankNeed need;
    need.part = part;
    if constexpr (Backend::is_gpu) {
      need.device_need = m.device_bytes;
      need.device_available = double(hw.free_memory_bytes);
      need.host_need = m.host_bytes;
    } else {
      need.host_need = m.device_bytes + m.host_bytes;
    }
    need.host_available = double(host_available_memory_bytes());
    need.host_id = host_id_of(plan.comm);
    need.host_shared_available = double(host_shared_available_memory_bytes());
    require_every_rank_fits(need, plan.config->source.string(), std::string(Backend::name) + " (" + hw.device + ")",
                            plan.comm);
    return m;
  }

  std::int64_t steps_per_call() const { return 1; }
  void step() {
    const std::int64_t n = sim_->steps_done();
    sim_->step(stimulus_->uniform_current(n), stimulus_->has_per_cell() ? stimulus_->per_cell_current(n) : nullptr);
  }
  void fence() { sim_->fence(); }
  std::int64_t steps_done() const { return sim_->steps_done(); }
  const IoRankState<Real, Mem>& state() {
    state_.cur = sim_->state();
    return state_;
  }
  std::int64_t device_bytes() const { return sim_->device_bytes(); }
  bool spikes_due(std::int64_t, std::int64_t, bool) const { return sim_->spikes_due(); }  // the same on every rank
  // Collective where spikes are due: every rank's spikes, merged on rank 0 (empty elsewhere).
  SpikeEvents drain_spikes(bool final_drain) {
    if (sim_->spike_drain_interval() == 0 || !(final_drain || sim_->spikes_due())) return {};
    return mpi::gather_events(sim_->drain_spikes(), comm_);
  }

  // Collective: every rank's phase times to rank 0, whose result gets the run's (io_rank_report.hpp).
  void finish(RunResult& res) {
    mine_.setup_s = res.setup_s - mine_.plan_s - barrier_s_;  // the runner's setup less plan and barrier waits
    mine_.split_loop(sim_->phases(), res.simulate_s);
    mine_.output_s = res.output_s;
    mpi::check(MPI_Barrier(comm_), "MPI_Barrier");
    mine_.wall_s = wall_.seconds();
    const auto times = mine_.to_array();
    const auto all = mpi::gather(std::vector<double>(times.begin(), times.end()), comm_);
    if (all.counts.empty()) return;  // not rank 0
    std::vector<RankPhaseTimes> ranks;
    for (std::size_t k = 0; k + RankPhaseTimes::kNumbers <= all.values.size(); k += RankPhaseTimes::kNumbers)
      ranks.push_back(RankPhaseTimes::from_array(all.values.data() + k));
    report_ranks(res, ranks, layout_);
  }

 private:
  void barrier() {
    const Stopwatch wait;
    mpi::check(MPI_Barrier(comm_), "MPI_Barrier");
    barrier_s_ += wait.seconds();
  }

  MPI_Comm comm_;
  std::unique_ptr<Stimulus> stimulus_;
  std::optional<IoMpiSimulation<Backend, Real>> sim_;
  IoRankState<Real, Mem> state_;
  IoRankLayout layout_;
  RankPhaseTimes mine_;
  Stopwatch wall_;
  double barrier_s_ = 0;
};

}  // namespace kbrain::olive
