// Under mpirun every rank states its own part's memory before any rank allocates it
// (models/olive/distributed/rank_memory.hpp); a part that does not fit is refused on every rank, naming the rank.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <mpi.h>

#include "backends/serial/serial_backend.hpp"
#include "core/config/experiment_config.hpp"
#include "core/parallel/mpi_plan.hpp"
#include "models/olive/distributed/olive_mpi_model.hpp"
#include "models/olive/distributed/rank_memory_check.hpp"
#include "models/registry.hpp"

TEST_SUITE("mpi") {
  TEST_CASE("a rank whose part does not fit is named, on every rank, before any rank allocates") {
    const MPI_Comm comm = MPI_COMM_WORLD;
    const int me = kbrain::mpi::rank(comm), ranks = kbrain::mpi::size(comm);
    kbrain::olive::RankNeed mine;
    mine.part = {100, 800, 50};
    mine.host_need = 1000;
    mine.host_available = 1e9;
    CHECK_NOTHROW(kbrain::olive::require_every_rank_fits(mine, "x.toml", "serial (cpu)", comm));
    if (me == ranks - 1) mine.host_available = 500;  // the last rank is short; every rank is told
    try {
      kbrain::olive::require_every_rank_fits(mine, "x.toml", "serial (cpu)", comm);
      FAIL("not refused");
    } catch (const kbrain::NotEnoughMemory& e) {
      CHECK(std::string(e.what()) ==
            fmt::format("x.toml: [network]: rank {} of {}: its part (100 cells, 800 junctions, a halo of at most 50 "
                        "cells) needs 0.00 GiB (1000 bytes) of host memory but 0.00 GiB (500 bytes) are available; "
                        "about 50 cells a rank fit (more ranks or a smaller network)",
                        ranks - 1, ranks));
    }
    // a backend's own memory is named with the backend
    kbrain::olive::RankNeed gpu;
    gpu.part = {10, 0, 0};
    gpu.device_need = 4000;
    gpu.device_available = 1000;
    CHECK(kbrain::olive::rank_refusal({gpu}, "x.toml", "cuda (H100)") ==
          "x.toml: [network]: rank 0 of 1: its part (10 cells, 0 junctions, a halo of at most 0 cells) needs 0.00 GiB "
          "(4000 bytes) of device memory but 0.00 GiB (1000 bytes) are available on cuda (H100); about 2 cells a rank "
          "fit (more ranks or a smaller network)");
  }

  TEST_CASE("ranks that fit one by one are refused when together they exceed the host they share") {
    kbrain::olive::RankNeed a;
    a.part = {100, 800, 50};
    a.host_need = 1000;
    a.host_available = 1e9;
    a.host_id = 0;
    a.host_shared_available = 1500;
    CHECK(kbrain::olive::rank_refusal({a, a}, "x.toml", "serial (cpu)") ==
          "x.toml: [network]: the 2 ranks on one host (ranks 0, 1) need 0.00 GiB (2000 bytes) of host memory together "
          "but 0.00 GiB (1500 bytes) are available there; about 75 cells a rank fit (fewer ranks a host, more hosts or "
          "a smaller network)");
    kbrain::olive::RankNeed b = a;
    b.host_id = 1;  // on two hosts: each has what it needs
    CHECK(kbrain::olive::rank_refusal({a, b}, "x.toml", "serial (cpu)").empty());
    // the ranks of this test share one host: their host is the lowest rank's
    CHECK(kbrain::olive::host_id_of(MPI_COMM_WORLD) == 0);
  }

  TEST_CASE("each rank states its own part of an IO mesh") {
    const MPI_Comm comm = MPI_COMM_WORLD;
    const int ranks = kbrain::mpi::size(comm);
    const kbrain::ExperimentConfig cfg = kbrain::parse_model_experiment(
        "name = \"mesh\"\n[model]\nkind = \"io\"\n[simulation]\nsteps = 10\n"
        "[network]\ntype = \"mesh2d\"\nrows = 16\ncols = 16\n",
        "mesh.toml");
    kbrain::olive::OliveMpiPlan plan = kbrain::olive::OliveMpiModel::make_plan(cfg, kbrain::PlanRequest{});
    plan.comm = comm;
    const kbrain::olive::RankPart part = kbrain::olive::rank_part_of(plan);
    std::int64_t sums[2] = {part.owned, part.junctions};
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_INT64_T, MPI_SUM, comm);
    CHECK(sums[0] == 256);
    CHECK(sums[1] == plan.network->junctions());
    if (ranks == 1) CHECK(part.halo == 0);
    if (ranks > 1) CHECK(part.halo > 0);  // tiles of a mesh read their neighbours' border cells
    CHECK(part.halo <= 256 - part.owned);
    const kbrain::MemoryStatement m =
        kbrain::olive::OliveMpiRun<kbrain::SerialBackend, double>::memory(plan, kbrain::RunRequest{});
    // at least the rank's two state buffers of 16 variables over its own and halo cells
    CHECK(m.device_bytes >= 2.0 * 16 * 8 * double(part.owned + part.halo));
  }
}
