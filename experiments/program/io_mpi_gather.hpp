#pragma once
// The collective parts of `kbrain run` under mpirun for IO networks (io_mpi_runner.hpp): traces sampled by the rank
// that owns each traced cell and assembled into full rows on rank 0, spikes merged on rank 0, and the per-rank phase
// times. Only compiled with KBRAIN_ENABLE_MPI.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <mpi.h>

#include "core/parallel/mpi_plan.hpp"
#include "core/parallel/partition.hpp"
#include "core/recorders/trace_recorder.hpp"
#include "experiments/program/io_mpi_dispatch.hpp"
#include "models/olive/cell/io_sampler.hpp"
#include "models/olive/distributed/io_step_phases.hpp"
#include "models/olive/olive_plan.hpp"
#include "models/runtime/model_runner.hpp"

namespace kbrain {

// Traces of a multi-rank run: every rank samples the traced cells it owns; rank 0 writes the assembled rows.
template <class Exec, class Real>
class RankTraceGather {
 public:
  // Collective. Inactive (active() false) when the run writes no trace.
  RankTraceGather(const olive::OlivePlan& plan, const RunRequest& request, const Partition& part, const CommPlan& cplan,
                  MPI_Comm comm)
      : comm_(comm), me_(mpi::rank(comm)), ranks_(mpi::size(comm)) {
    if (request.out_dir.empty() || !request.write_trace || plan.trace_vars.empty() || plan.trace_cells.empty()) return;
    const auto ncells = static_cast<int>(plan.trace_cells.size());
    full_width_ = static_cast<int>(plan.trace_vars.size()) * ncells;
    const int slots = static_cast<int>(std::clamp<std::int64_t>((8 << 20) / full_width_, 1, 4096));
    std::vector<std::int64_t> local_ids;
    std::vector<int> cell_index, positions;  // this rank's entries' positions in a full trace row
    std::unordered_map<std::int64_t, std::int64_t> local_of;  // traced cells this rank owns -> local id
    for (int c = 0; c < ncells; ++c)
      if (part.owner[plan.trace_cells[c]] == me_) local_of.emplace(plan.trace_cells[c], -1);
    for (std::int64_t l = 0; l < cplan.owned; ++l) {
      const auto it = local_of.find(cplan.global[l]);
      if (it != local_of.end()) it->second = l;
    }
    for (int c = 0; c < ncells; ++c) {
      if (part.owner[plan.trace_cells[c]] != me_) continue;
      local_ids.push_back(local_of.at(plan.trace_cells[c]));
      cell_index.push_back(c);
    }
    for (std::size_t v = 0; v < plan.trace_vars.size(); ++v)
      for (int c : cell_index) positions.push_back(static_cast<int>(v) * ncells + c);
    sampler_.emplace(plan.trace_vars, local_ids, slots);
    const int w = static_cast<int>(positions.size());
    counts_.resize(ranks_);
    MPI_Gather(&w, 1, MPI_INT, counts_.data(), 1, MPI_INT, 0, comm_);
    displs_.assign(ranks_, 0);
    int total = 0;
    for (int q = 0; q < ranks_; ++q) displs_[q] = total, total += counts_[q];
    if (me_ == 0) positions_.resize(total);
    MPI_Gatherv(positions.data(), w, MPI_INT, positions_.data(), counts_.data(), displs_.data(), MPI_INT, 0, comm_);
    if (me_ == 0) trace_.emplace(request.out_dir, trace_spec_of(plan, std::is_same<Real, float>::value));
  }

  bool active() const { return sampler_.has_value(); }
  bool full() const { return sampler_ && sampler_->full(); }
  template <class State>
  void capture(const State& state, std::int64_t step) {
    sampler_->capture(state, step);
  }

  // Collective: every rank's samples to rank 0, which writes full rows.
  void drain() {
    std::vector<std::int64_t> steps;
    std::vector<double> mine;
    sampler_->drain([&](std::int64_t step, const double* v) {
      steps.push_back(step);
      mine.insert(mine.end(), v, v + sampler_->width());
    });
    const int samples = static_cast<int>(steps.size());  // the same on every rank
    std::vector<int> counts(ranks_), displs(ranks_);
    int total = 0;
    for (int q = 0; q < ranks_; ++q) counts[q] = counts_[q] * samples, displs[q] = total, total += counts[q];
    std::vector<double> gathered(me_ == 0 ? total : 0);
    MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, gathered.data(), counts.data(), displs.data(),
                MPI_DOUBLE, 0, comm_);
    if (me_ != 0) return;
    std::vector<double> row(full_width_);
    for (int s = 0; s < samples; ++s) {
      for (int q = 0; q < ranks_; ++q)
        for (int k = 0; k < counts_[q]; ++k) row[positions_[displs_[q] + k]] = gathered[displs[q] + s * counts_[q] + k];
      trace_->record(steps[s], row.data());
    }
  }
  void close() {
    if (trace_) trace_->close();
  }

 private:
  MPI_Comm comm_;
  int me_, ranks_;
  std::optional<olive::IoSampler<Exec, Real>> sampler_;
  std::optional<TraceRecorder> trace_;  // rank 0
  std::vector<int> counts_, displs_;    // per-rank widths and their offsets
  std::vector<int> positions_;          // rank 0: every rank's positions in a row, concatenated
  int full_width_ = 0;
};

// Collective: every rank's spike events, merged and sorted on rank 0 (empty elsewhere).
inline std::vector<std::pair<std::int64_t, std::int64_t>> gather_spikes(
    const std::vector<std::pair<std::int64_t, std::int64_t>>& events, MPI_Comm comm) {
  const int me = mpi::rank(comm), ranks = mpi::size(comm);
  std::vector<std::int64_t> flat;
  for (const auto& e : events) flat.push_back(e.first), flat.push_back(e.second);
  int n = static_cast<int>(flat.size());
  std::vector<int> counts(ranks), displs(ranks);
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (int q = 0; q < ranks; ++q) displs[q] = total, total += counts[q];
  std::vector<std::int64_t> all(me == 0 ? total : 0);
  MPI_Gatherv(flat.data(), n, MPI_INT64_T, all.data(), counts.data(), displs.data(), MPI_INT64_T, 0, comm);
  std::vector<std::pair<std::int64_t, std::int64_t>> merged;
  for (int k = 0; k + 1 < total; k += 2) merged.emplace_back(all[k], all[k + 1]);
  std::sort(merged.begin(), merged.end());
  return merged;
}

// This rank's compute/exchange split of its loop time (the fenced phases' own times with phase timing).
inline void split_loop_time(RankPhaseTimes& mine, const olive::IoStepPhases& ph, double simulate) {
  mine.exchange_wait_s = ph.wait_s;
  mine.pack_post_s = ph.pack_s;
  mine.simulate_s = simulate;
  mine.phase_timing = ph.fenced;
  if (ph.fenced) {
    mine.interior_s = ph.interior_s;
    mine.border_s = ph.border_s;
    mine.unpack_s = ph.unpack_s;
    mine.compute_s = ph.compute_s();
    mine.exchange_s = ph.exchange_s();
    mine.exchange_fraction = simulate > 0 ? mine.exchange_s / simulate : 0.0;
  } else {
    mine.compute_s = simulate - std::min(simulate, mine.exchange_wait_s);
  }
}

// Collective: every rank's phase times to rank 0 (out.ranks; res gets the maxima, the junction total and the
// slowest rank's loop time).
inline void gather_rank_times(const RankPhaseTimes& mine, IoMpiRunResult& out, MPI_Comm comm) {
  const int me = mpi::rank(comm), ranks = mpi::size(comm);
  RunResult& res = out.run;
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
  res.simulate_s = mine.simulate_s;  // rank 0's loop time (all ranks are in lock-step through the halo exchange)
  double simulate_max = 0;
  MPI_Reduce(&mine.simulate_s, &simulate_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  if (me == 0) res.simulate_s = simulate_max;
}

}  // namespace kbrain
