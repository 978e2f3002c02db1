// The samplers of the distributed IO run (models/olive/distributed/io_rank_sampler.hpp), under `mpirun -n K`,
// K = 1..4: rank 0 drains full trace rows in the single-process order whichever ranks own the traced cells, and the
// NaN/inf check gives every rank the single-process answer (the first bad variable, then the lowest global cell),
// whichever rank owns the bad values.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include "core/network/gap_network.hpp"
#include "core/parallel/partition.hpp"
#include "models/olive/distributed/io_mpi_setup.hpp"
#include "models/olive/distributed/io_mpi_simulation.hpp"
#include "models/olive/distributed/io_rank_sampler.hpp"
#include "tests/backend_types.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::olive;

// Sets variable `var` of global cell `cell` to `value` on the rank that owns it.
template <class View>
void plant(const View& state, const CommPlan& plan, int var, std::int64_t cell, double value) {
  for (std::int64_t l = 0; l < plan.owned; ++l)
    if (plan.global[l] == cell) Kokkos::deep_copy(Kokkos::subview(state, var, l), value);
}

}  // namespace

TEST_SUITE("mpi_rank_sampler") {
  TEST_CASE_TEMPLATE_DEFINE("rank samplers: full rows on rank 0, one NaN/inf answer on every rank", Backend,
                            mpi_rank_sampler) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    const MPI_Comm comm = MPI_COMM_WORLD;
    const GapNetwork net = make_mesh2d(7, 9, 0.04);
    const std::int64_t cells = net.cells;
    std::vector<double> g_cal(cells);
    for (std::int64_t i = 0; i < cells; ++i) g_cal[i] = 0.55 + 0.3 * std::fmod(0.6180339887 * double(i), 1.0);
    const Partition part = make_io_partition(net, nullptr, PartitionChoice::Blocks, mpi::size(comm));
    RankSetupTimes times;
    const auto rank_plan = make_rank_plan<Exec>(net, nullptr, part, comm, times);
    IoMpiSimulation<Backend, double> sim(IoParameters{}, rank_plan, g_cal, comm);
    for (int n = 0; n < 30; ++n) sim.step(n >= 5 ? 6.0 : 0.0);  // cells drift apart

    IoRankState<double, Mem> s{sim.state(), &sim.plan(), comm};
    const std::vector<int> vars = {V_AXON, V_DEND};
    const std::vector<std::int64_t> traced = {62, 0, 31, 40};  // spread over the ranks, out of order
    IoRankSampler<Exec, double> sampler(s, vars, traced, 4);
    CHECK(sampler.width() == 8);
    sampler.capture(s, 30);
    std::vector<std::vector<double>> rows;
    sampler.drain([&](std::int64_t step, const double* row) {
      CHECK(step == 30);
      rows.emplace_back(row, row + sampler.width());
    });
    const auto v_axon = sim.gather_variable(V_AXON), v_dend = sim.gather_variable(V_DEND);
    if (mpi::rank(comm) == 0) {
      REQUIRE(rows.size() == 1);
      for (std::size_t c = 0; c < traced.size(); ++c) {
        CHECK(rows[0][c] == v_axon[traced[c]]);
        CHECK(rows[0][traced.size() + c] == v_dend[traced[c]]);
      }
    } else {
      CHECK(rows.empty());
    }

    using Sampler = IoRankSampler<Exec, double>;
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    CHECK(Sampler::first_implausible(s, vars, {}, cells) == -1);
    plant(sim.state(), sim.plan(), V_DEND, 60, nan);  // the last rank's cell; V_DEND is the second variable
    CHECK(Sampler::first_implausible(s, vars, {}, cells) == cells + 60);
    plant(sim.state(), sim.plan(), V_DEND, 2, inf);  // rank 0's: the lower cell wins
    CHECK(Sampler::first_implausible(s, vars, {}, cells) == cells + 2);
    plant(sim.state(), sim.plan(), V_AXON, 61, -inf);  // the first variable wins over any cell of the second
    CHECK(Sampler::first_implausible(s, vars, {}, cells) == 61);
  }
  TEST_CASE_TEMPLATE_APPLY(mpi_rank_sampler, KBRAIN_TEST_BACKENDS);
}
