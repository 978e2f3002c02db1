#pragma once
// The samplers of a distributed IO run (a partitioned simulation, models/runtime/model_runner.hpp): each rank samples
// the traced cells it owns; a drain gathers the samples to rank 0, which hands the runner full rows in the
// single-process order. The NaN/inf check looks at the rank's own cells and agrees over the ranks, so that every rank
// stops at the same check with the same answer. Collective: the ranks construct, drain and check at the same steps
// (they capture at the same steps into rings of the same size, so they fill together). Only compiled with
// KBRAIN_ENABLE_MPI.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include "core/parallel/comm_plan.hpp"
#include "core/parallel/mpi_gather.hpp"
#include "models/common/device_sampler.hpp"
#include "models/olive/cell/io_sampler.hpp"
#include "models/olive/cell/io_state.hpp"

namespace kbrain::olive {

// What the samplers read: the rank's state and which global cells its local ones are.
template <class Real, class Mem>
struct IoRankState {
  StateView<Real, Mem> cur;        // local cells: the owned ones (plan->owned) first, then the halo
  const CommPlan* plan = nullptr;  // global ids of the local cells
  MPI_Comm comm = MPI_COMM_NULL;
};

template <class Exec, class Real>
class IoRankSampler {
 public:
  using Mem = typename Exec::memory_space;
  using State = IoRankState<Real, Mem>;

  // Samples variables x cells (global ids; rows variable-major), up to `slots` samples between drains. Collective.
  IoRankSampler(const State& s, const std::vector<int>& variables, const std::vector<std::int64_t>& cells, int slots)
      : comm_(s.comm), width_(static_cast<int>(variables.size() * cells.size())) {
    std::unordered_map<std::int64_t, std::int64_t> local_of;  // traced cell -> local id (-1: another rank's)
    for (const auto c : cells) local_of.emplace(c, -1);
    for (std::int64_t l = 0; l < s.plan->owned; ++l) {
      const auto it = local_of.find(s.plan->global[l]);
      if (it != local_of.end()) it->second = l;
    }
    std::vector<std::int64_t> local_ids;
    std::vector<int> traced_at;  // positions of this rank's cells in `cells`
    for (std::size_t c = 0; c < cells.size(); ++c)
      if (const std::int64_t l = local_of.at(cells[c]); l >= 0) {
        local_ids.push_back(l);
        traced_at.push_back(static_cast<int>(c));
      }
    std::vector<int> positions;  // this rank's values' places in a full row
    for (std::size_t v = 0; v < variables.size(); ++v)
      for (const int c : traced_at) positions.push_back(static_cast<int>(v * cells.size()) + c);
    sampler_ = IoSampler<Exec, Real>(variables, local_ids, slots);
    rows_ = mpi::gather(positions, comm_);
  }

  int width() const { return width_; }
  bool full() const { return sampler_.full(); }
  void capture(const State& s, std::int64_t step) { sampler_.capture(s.cur, step); }

  // Collective: every rank's samples to rank 0, which calls sink(step, const double* row) with full rows, oldest
  // first. The other ranks' sinks are not called.
  template <class Sink>
  void drain(Sink&& sink) {
    std::vector<std::int64_t> steps;
    std::vector<double> mine;
    sampler_.drain([&](std::int64_t step, const double* v) {
      steps.push_back(step);
      mine.insert(mine.end(), v, v + sampler_.width());
    });
    const mpi::Gathered<double> all = mpi::gather(mine, comm_);
    std::vector<double> row(static_cast<std::size_t>(width_));
    for (std::size_t s = 0; !all.counts.empty() && s < steps.size(); ++s) {  // rank 0; as many samples everywhere
      for (std::size_t q = 0; q < all.counts.size(); ++q) {
        const int w = rows_.counts[q];
        for (int k = 0; k < w; ++k) row[rows_.values[rows_.displs[q] + k]] = all.values[all.displs[q] + s * w + k];
      }
      sink(steps[s], row.data());
    }
  }

  // Collective: the first (variables[slot], global cell) over all ranks whose value is not finite or beyond
  // bounds[slot], as slot * cells + cell (the single-process answer), or -1; the same on every rank.
  static std::int64_t first_implausible(const State& s, const std::vector<int>& variables,
                                        const std::vector<double>& bounds, std::int64_t cells) {
    constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
    std::int64_t first = kNone;
    if (kbrain::first_implausible<Exec, Real>(IoStateReader<Real, Mem>{s.cur}, variables, bounds, s.plan->owned) >= 0)
      first = first_global(s, variables, bounds, cells);
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT64_T, MPI_MIN, s.comm), "MPI_Allreduce");
    return first == kNone ? -1 : first;
  }

  // Collective: the value of (variable, global cell), from the rank that owns the cell (the others add 0).
  static double value_at(const State& s, int variable, std::int64_t cell) {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.cur);
    double value = 0;
    for (std::int64_t l = 0; l < s.plan->owned; ++l)
      if (s.plan->global[l] == cell) value = double(host(variable, l));
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_SUM, s.comm), "MPI_Allreduce");
    return value;
  }

 private:
  // The smallest slot * cells + global id among the rank's values that are not finite or beyond their bound. The
  // local order is not the global one, so the state is searched on the host: only once a value was found, the run
  // then stops.
  static std::int64_t first_global(const State& s, const std::vector<int>& variables, const std::vector<double>& bounds,
                                   std::int64_t cells) {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.cur);
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    for (std::size_t slot = 0; slot < variables.size(); ++slot)
      for (std::int64_t l = 0; l < s.plan->owned; ++l)
        if (implausible(host(variables[slot], l),
                        bounds.empty() ? std::numeric_limits<double>::infinity() : bounds[slot]))
          first = std::min(first, static_cast<std::int64_t>(slot) * cells + s.plan->global[l]);
    return first;
  }

  MPI_Comm comm_;
  int width_ = 0;  // a full row: every traced cell
  IoSampler<Exec, Real> sampler_;
  mpi::Gathered<int> rows_;  // rank 0: every rank's places in a full row
};

}  // namespace kbrain::olive
