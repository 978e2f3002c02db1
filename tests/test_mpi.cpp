// Distributed IO networks (docs/mpi.md), run under `mpirun --oversubscribe -n K` for K = 1..4: every rank's part
// of the network, then V_axon of every cell after every step, gathered on rank 0, must be bit-identical (double and
// float) to the single-process run of the same network, for mesh, uniform and gaussian3d networks, with every
// partition kind and uneven partitions (cell counts not divisible by K).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <mpi.h>

#include "backends/serial/serial_backend.hpp"
#include "core/network/gap_network.hpp"
#include "core/network/generate_network.hpp"
#include "core/network/random_network.hpp"
#include "core/parallel/partition.hpp"
#include "models/olive/distributed/io_mpi_setup.hpp"
#include "models/olive/distributed/io_mpi_simulation.hpp"
#include "models/olive/cell/io_parameters.hpp"
#include "models/olive/drivers/io_simulation.hpp"
#include "tests/backend_types.hpp"

namespace {

using kbrain::GapNetwork;
using kbrain::PartitionChoice;
using kbrain::RandomNetworkSpec;

std::vector<double> g_cal_of(std::int64_t cells) {  // heterogeneous cells: they drift apart, exercising the junctions
  std::vector<double> g(cells);
  for (std::int64_t i = 0; i < cells; ++i) g[i] = 0.55 + 0.3 * std::fmod(0.6180339887 * double(i), 1.0);
  return g;
}

// The reference pulse (cells spike, voltages stay finite). An amplitude of 20 drove forward Euler to NaN after ~90
// steps in some cells, and NaN bit patterns differ between the vectorised and scalar host loops of non-native builds.
double i_app_at(std::int64_t n) { return (n >= 20 && n < 200) ? 6.0 : 0.0; }

// The single-process run (the mesh through its implicit kernel, as `kbrain run` does) against the distributed one.
// Returns the number of (step, cell) V_axon values that differ in any bit (on rank 0; 0 elsewhere).
template <class Backend, class Real>
std::int64_t compare_runs(const GapNetwork& host_net, const kbrain::RandomNetworkTables* generator,
                          PartitionChoice choice, int steps, std::int64_t* spikes_ref = nullptr,
                          std::int64_t* spikes_dist = nullptr, const std::vector<double>* per_cell = nullptr,
                          bool phase_fences = false,
                          kbrain::HaloExchange exchange = kbrain::HaloExchange::Auto,
                          kbrain::HaloExchangeMode* mode = nullptr) {
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int me = kbrain::mpi::rank(comm), ranks = kbrain::mpi::size(comm);
  const std::int64_t cells = generator ? generator->spec.cells : host_net.cells;
  kbrain::olive::IoParameters params;
  const auto g_cal = g_cal_of(cells);

  // reference: one process (every rank computes it; only rank 0 compares)
  auto single = [&] {
    if (generator) {
      const auto net = kbrain::generate_network<Exec, Real, Mem>(*generator);
      return kbrain::olive::IoSimulation<Backend, Real>(
          params, kbrain::olive::DeviceGapNetwork<Real, Mem>::from_views(net.cells, net.offsets, net.sources, net.g,
                                                                       net.g_const),
          g_cal);
    }
    return kbrain::olive::IoSimulation<Backend, Real>(params, host_net, g_cal, true);
  }();
  single.enable_spikes(-20.0);

  const auto part = kbrain::olive::make_io_partition(host_net, generator, choice, ranks);
  kbrain::olive::RankSetupTimes times;
  const auto plan = kbrain::olive::make_rank_plan<Exec>(host_net, generator, part, comm, times);
  kbrain::olive::IoMpiSimulation<Backend, Real> dist(params, plan, g_cal, comm, exchange);
  if (mode) *mode = dist.exchange_mode();
  dist.set_phase_fences(phase_fences);
  dist.enable_spikes(-20.0);

  std::int64_t differing = 0, sref = 0, sdist = 0, nonfinite = 0;
  for (int n = 0; n < steps; ++n) {
    single.step(i_app_at(n), per_cell);
    dist.step(i_app_at(n), per_cell);
    const auto got = dist.gather_variable(kbrain::olive::V_AXON);
    if (me == 0) {
      const auto want = single.variable(kbrain::olive::V_AXON);
      for (std::int64_t i = 0; i < cells; ++i) {
        const Real a = Real(want[i]), b = Real(got[i]);
        nonfinite += !std::isfinite(a);
        if (std::memcmp(&a, &b, sizeof(Real)) != 0) ++differing;
      }
    }
  }
  CHECK(nonfinite == 0);  // a bit comparison of NaNs would compare payloads, not dynamics
  sref = static_cast<std::int64_t>(single.drain_spikes().size());
  std::int64_t mine = static_cast<std::int64_t>(dist.drain_spikes().size());
  MPI_Reduce(&mine, &sdist, 1, MPI_INT64_T, MPI_SUM, 0, comm);
  if (spikes_ref) *spikes_ref = sref;
  if (spikes_dist) *spikes_dist = me == 0 ? sdist : sref;
  return differing;
}

RandomNetworkSpec random_spec(RandomNetworkSpec::Kind kind, std::int64_t cells, double density, bool g_range) {
  RandomNetworkSpec s;
  s.kind = kind;
  s.cells = cells;
  s.density = density;
  s.sigma = 1.0;
  s.scale = 1.5;
  s.seed = 2024;
  if (g_range) s.g_low = 0.02, s.g_high = 0.06;
  return s;
}

}  // namespace

TEST_SUITE("mpi") {
  TEST_CASE_TEMPLATE_DEFINE("distributed V_axon is bit-identical to the single-process run", Backend, mpi_identity) {
    const int ranks = kbrain::mpi::size(MPI_COMM_WORLD);
    CAPTURE(ranks);
    constexpr int kSteps = 300;  // the pulse (steps 20..199) makes every cell spike within 300 steps

    SUBCASE("mesh 13 x 11 (143 cells), tiles and blocks") {
      const GapNetwork mesh = kbrain::make_mesh2d(13, 11, 0.04);
      for (auto choice : {PartitionChoice::Tiles2d, PartitionChoice::Blocks}) {
        CAPTURE(int(choice));
        std::int64_t sr = 0, sd = 0;
        CHECK(compare_runs<Backend, double>(mesh, nullptr, choice, kSteps, &sr, &sd) == 0);
        CHECK(sr > 0);  // the spike comparison is not vacuous
        CHECK(sr == sd);
        CHECK(compare_runs<Backend, float>(mesh, nullptr, choice, kSteps / 2) == 0);
      }
      // per-cell applied currents (stimulus kind cell_file): each rank picks its cells' values by global id
      std::vector<double> per_cell(static_cast<std::size_t>(mesh.cells));
      for (std::size_t i = 0; i < per_cell.size(); ++i) per_cell[i] = 0.5 * double(i % 5);
      CHECK(compare_runs<Backend, double>(mesh, nullptr, PartitionChoice::Tiles2d, kSteps, nullptr, nullptr,
                                          &per_cell) == 0);
    }
    SUBCASE("uniform 301 cells, density 12, per-junction conductances") {
      const auto tables = kbrain::make_random_network_tables(random_spec(RandomNetworkSpec::Kind::Uniform, 301, 12, true));
      GapNetwork placeholder;
      placeholder.cells = 301;
      std::int64_t sr = 0, sd = 0;
      CHECK(compare_runs<Backend, double>(placeholder, &tables, PartitionChoice::Blocks, kSteps, &sr, &sd) == 0);
      CHECK(sr == sd);
      CHECK(compare_runs<Backend, float>(placeholder, &tables, PartitionChoice::Blocks, kSteps / 2) == 0);
    }
    SUBCASE("gaussian3d 343 and 400 cells (partial cube), bricks and blocks") {
      for (std::int64_t cells : {343, 400}) {
        CAPTURE(cells);
        const auto tables =
            kbrain::make_random_network_tables(random_spec(RandomNetworkSpec::Kind::Gaussian3d, cells, 20, false));
        GapNetwork placeholder;
        placeholder.cells = cells;
        for (auto choice : {PartitionChoice::Bricks3d, PartitionChoice::Blocks}) {
          CAPTURE(int(choice));
          CHECK(compare_runs<Backend, double>(placeholder, &tables, choice, kSteps) == 0);
        }
      }
    }
    SUBCASE("all_to_all 10 cells (every rank needs every other rank's cells)") {
      const GapNetwork a2a = kbrain::make_all_to_all(10, 0.04);
      CHECK(compare_runs<Backend, double>(a2a, nullptr, PartitionChoice::Blocks, kSteps) == 0);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(mpi_identity, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("phase fences: the same bits, and phase times that add up", Backend, mpi_phases) {
    using Exec = typename Backend::execution_space;
    const MPI_Comm comm = MPI_COMM_WORLD;
    const int ranks = kbrain::mpi::size(comm);
    CAPTURE(ranks);
    const GapNetwork mesh = kbrain::make_mesh2d(13, 11, 0.04);
    const auto tables =
        kbrain::make_random_network_tables(random_spec(RandomNetworkSpec::Kind::Gaussian3d, 400, 20, true));
    GapNetwork placeholder;
    placeholder.cells = 400;
    // fenced runs equal the single-process run bit for bit (as the unfenced ones do, above)
    std::int64_t sr = 0, sd = 0;
    CHECK(compare_runs<Backend, double>(mesh, nullptr, PartitionChoice::Tiles2d, 300, &sr, &sd, nullptr, true) == 0);
    CHECK(sr == sd);
    CHECK(compare_runs<Backend, float>(placeholder, &tables, PartitionChoice::Bricks3d, 60, nullptr, nullptr, nullptr,
                                       true) == 0);

    kbrain::olive::IoParameters params;
    const auto part = kbrain::olive::make_io_partition(mesh, nullptr, PartitionChoice::Tiles2d, ranks);
    kbrain::olive::RankSetupTimes times;
    const auto plan = kbrain::olive::make_rank_plan<Exec>(mesh, nullptr, part, comm, times);
    for (bool fenced : {false, true}) {
      CAPTURE(fenced);
      kbrain::olive::IoMpiSimulation<Backend, double> sim(params, plan, g_cal_of(mesh.cells), comm);
      sim.set_phase_fences(fenced);
      CHECK(sim.phase_fences() == fenced);
      for (int n = 0; n < 30; ++n) sim.step(i_app_at(n));
      const kbrain::olive::IoStepPhases& ph = sim.phases();
      CHECK(ph.fenced == fenced);
      for (double t : {ph.pack_s, ph.interior_s, ph.wait_s, ph.unpack_s, ph.border_s, ph.step_s}) CHECK(t >= 0.0);
      CHECK(ph.exchange_s() == ph.pack_s + ph.wait_s + ph.unpack_s);
      CHECK(ph.compute_s() == ph.interior_s + ph.border_s);
      CHECK(sim.exchange_wait_s() == ph.wait_s);
      CHECK(sim.pack_post_s() == ph.pack_s);
      if (fenced) {
        // the phases are disjoint intervals inside the step
        CHECK(ph.exchange_s() + ph.compute_s() <= ph.step_s * (1 + 1e-9) + 1e-12);
        CHECK(ph.step_s > 0.0);
        if (ranks > 1) CHECK(ph.exchange_s() > 0.0);
      } else {
        CHECK(ph.interior_s == 0.0);  // only pack/post and wait are measured without fences
        CHECK(ph.border_s == 0.0);
        CHECK(ph.unpack_s == 0.0);
        CHECK(ph.step_s == 0.0);
      }
      if (ranks == 1) CHECK(ph.exchange_s() == 0.0);  // one rank: nothing to exchange
    }
  }
  TEST_CASE_TEMPLATE_APPLY(mpi_phases, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("halo exchange through MPI and through peer copies: the same bits", Backend,
                            mpi_exchange_modes) {
    // Backends with a peer transport (CUDA: IPC copies between the ranks' device buffers, double buffered by step
    // parity, MPI tokens) run both ways; the others refuse 'peer' with a clear error. Many steps: a parity or token
    // mistake shows up as a stale or torn halo value.
    using kbrain::HaloExchange;
    using kbrain::HaloExchangeMode;
    const int ranks = kbrain::mpi::size(MPI_COMM_WORLD);
    CAPTURE(ranks);
    const auto tables =
        kbrain::make_random_network_tables(random_spec(RandomNetworkSpec::Kind::Gaussian3d, 400, 30, true));
    GapNetwork placeholder;
    placeholder.cells = 400;
    HaloExchangeMode mode{};
    CHECK(compare_runs<Backend, double>(placeholder, &tables, PartitionChoice::Bricks3d, 150, nullptr, nullptr, nullptr,
                                        false, HaloExchange::Mpi, &mode) == 0);
    CHECK(mode != HaloExchangeMode::Peer);
    if constexpr (kbrain::olive::IoMpiSimulation<Backend, double>::kHasTransport) {
      CHECK(compare_runs<Backend, double>(placeholder, &tables, PartitionChoice::Bricks3d, 150, nullptr, nullptr,
                                          nullptr, false, HaloExchange::Peer, &mode) == 0);
      CHECK(mode == HaloExchangeMode::Peer);
      CHECK(compare_runs<Backend, float>(placeholder, &tables, PartitionChoice::Blocks, 75, nullptr, nullptr, nullptr,
                                         true, HaloExchange::Peer, &mode) == 0);  // fenced phases, peer
      CHECK(mode == HaloExchangeMode::Peer);
      CHECK(compare_runs<Backend, double>(placeholder, &tables, PartitionChoice::Blocks, 60, nullptr, nullptr, nullptr,
                                          false, HaloExchange::Auto, &mode) == 0);
      CHECK(mode == HaloExchangeMode::Peer);  // every rank of a ctest run is on one node
    } else {
      const auto peer_on_host = [&] {
        compare_runs<Backend, double>(placeholder, &tables, PartitionChoice::Blocks, 1, nullptr, nullptr, nullptr,
                                      false, HaloExchange::Peer);
      };
      CHECK_THROWS_AS(peer_on_host(), std::invalid_argument);
      CHECK(compare_runs<Backend, double>(placeholder, &tables, PartitionChoice::Blocks, 10, nullptr, nullptr, nullptr,
                                          false, HaloExchange::Auto, &mode) == 0);
      CHECK(mode == HaloExchangeMode::InPlace);  // host memory: MPI reads it where it is
    }
  }
  TEST_CASE_TEMPLATE_APPLY(mpi_exchange_modes, KBRAIN_TEST_BACKENDS);

  TEST_CASE("plans over MPI: each rank receives exactly the global ids of its halo, once, in halo order") {
    // Sends every cell's GLOBAL id through the plan's own neighbourhood exchange (the graph communicator and the
    // counts/displacements of the step): what arrives must be the halo, entry by entry. Also: the halo holds only
    // cells some owned row reads, each once.
    using Exec = Kokkos::DefaultHostExecutionSpace;
    const MPI_Comm comm = MPI_COMM_WORLD;
    const int ranks = kbrain::mpi::size(comm);
    const auto tables =
        kbrain::make_random_network_tables(random_spec(RandomNetworkSpec::Kind::Gaussian3d, 400, 20, false));
    GapNetwork placeholder;
    placeholder.cells = 400;
    const GapNetwork mesh = kbrain::make_mesh2d(13, 11, 0.04);
    for (int which = 0; which < 2; ++which) {
      CAPTURE(which);
      const GapNetwork& net = which == 0 ? mesh : placeholder;
      const kbrain::RandomNetworkTables* gen = which == 0 ? nullptr : &tables;
      const auto part = kbrain::olive::make_io_partition(net, gen, PartitionChoice::Auto, ranks);
      kbrain::olive::RankSetupTimes times;
      const auto rank_plan = kbrain::olive::make_rank_plan<Exec>(net, gen, part, comm, times);
      const kbrain::CommPlan& plan = rank_plan.plan;
      MPI_Comm graph = kbrain::mpi::make_halo_graph(plan, comm);
      std::vector<std::int64_t> send(plan.send_local.size()), recv(static_cast<std::size_t>(plan.halo), -1);
      for (std::size_t k = 0; k < send.size(); ++k) send[k] = plan.global[plan.send_local[k]];
      std::vector<int> sc, sd, rc, rd;
      for (auto v : plan.send_counts) sc.push_back(int(v));
      for (auto v : plan.send_displs) sd.push_back(int(v));
      for (auto v : plan.recv_counts) rc.push_back(int(v));
      for (auto v : plan.recv_displs) rd.push_back(int(v));
      MPI_Neighbor_alltoallv(send.data(), sc.data(), sd.data(), MPI_INT64_T, recv.data(), rc.data(), rd.data(),
                             MPI_INT64_T, graph);
      MPI_Comm_free(&graph);
      int bad = 0;
      for (std::int64_t h = 0; h < plan.halo; ++h) bad += recv[h] != plan.global[plan.owned + h];
      std::vector<char> used(static_cast<std::size_t>(plan.halo), 0);
      for (auto s : rank_plan.rows.to_host().sources)
        if (s >= plan.owned) used[s - plan.owned] = 1;
      for (char u : used) bad += !u;
      int bad_all = 0;
      std::int64_t sent = static_cast<std::int64_t>(send.size()), sent_all = 0, halo_all = 0;
      MPI_Allreduce(&bad, &bad_all, 1, MPI_INT, MPI_SUM, comm);
      MPI_Allreduce(&sent, &sent_all, 1, MPI_INT64_T, MPI_SUM, comm);
      MPI_Allreduce(&plan.halo, &halo_all, 1, MPI_INT64_T, MPI_SUM, comm);
      CHECK(bad_all == 0);
      CHECK(sent_all == halo_all);
      if (ranks > 1) CHECK(halo_all > 0);
    }
  }

  TEST_CASE("the check can fail: a perturbed halo value is detected") {
    // Same comparison machinery on a deliberately wrong distributed run (one rank's cell gets a different g_CaL):
    // guards against a comparison that passes vacuously.
    using Backend = kbrain::SerialBackend;
    using Exec = Backend::execution_space;
    const MPI_Comm comm = MPI_COMM_WORLD;
    const GapNetwork mesh = kbrain::make_mesh2d(6, 6, 0.04);
    kbrain::olive::IoParameters params;
    auto g_cal = g_cal_of(36);
    kbrain::olive::IoSimulation<Backend, double> single(params, mesh, g_cal, true);
    const auto part = kbrain::olive::make_io_partition(mesh, nullptr, PartitionChoice::Blocks, kbrain::mpi::size(comm));
    kbrain::olive::RankSetupTimes times;
    const auto plan = kbrain::olive::make_rank_plan<Exec>(mesh, nullptr, part, comm, times);
    g_cal[35] += 0.01;
    kbrain::olive::IoMpiSimulation<Backend, double> dist(params, plan, g_cal, comm);
    std::int64_t differing = 0;
    for (int n = 0; n < 40; ++n) {
      single.step(i_app_at(n));
      dist.step(i_app_at(n));
    }
    const auto got = dist.gather_variable(kbrain::olive::V_AXON);
    if (kbrain::mpi::rank(comm) == 0) {
      const auto want = single.variable(kbrain::olive::V_AXON);
      for (int i = 0; i < 36; ++i) differing += want[i] != got[i];
      CHECK(differing > 0);
    }
  }
}
