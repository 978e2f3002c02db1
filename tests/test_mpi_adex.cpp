// The dense plastic AdEx model over MPI ranks (models/adex_costa/adex_exchange.hpp), under `mpirun -n K`, K = 1..4:
// each rank holds a contiguous part of the row blocks; after the run every neuron variable (on every rank) and every
// synapse variable of each rank's rows must be bit-identical to the single-process run, in float and double, for
// rank counts that leave some ranks without a block.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "models/adex_costa/adex_model.hpp"
#include "models/adex_costa/adex_mpi_exchange.hpp"
#include "models/registry.hpp"
#include "tests/backend_types.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::adex;

std::string adex_case(const std::string& network, const std::string& spikes) {
  return "name = \"t\"\n[model]\nkind = \"adex_costa\"\n[simulation]\ndt = 1.0\nsteps = 40\n[network]\n" + network +
         "\n[spikes]\n" + spikes + "\n";
}

// Values that differ in any bit between the single-process run and this rank's part of the distributed one.
template <class Backend, class Real>
long long differing_values(const AdexPlan& single_plan) {
  AdexPlan dist_plan = single_plan;
  dist_plan.exchange = std::make_shared<MpiAdexExchange>(MPI_COMM_WORLD);
  RunRequest request;
  RunResult r1, r2;
  AdexSimulation<Backend, Real> single(single_plan, request, r1), dist(dist_plan, request, r2);
  for (std::int64_t n = 0; n < single_plan.steps; ++n) {
    single.step();
    dist.step();
  }
  const auto a = host_copy(single.state());
  const auto b = host_copy(dist.state());
  auto same = [](Real x, Real y) { return std::memcmp(&x, &y, sizeof(Real)) == 0; };
  long long differ = 0;
  for (int v = V_M; v <= I_SYN; ++v)
    for (std::int64_t j = 0; j < single_plan.n_post; ++j) differ += !same(a(v, j), b(v, j));
  const std::int64_t first = b.st.row_begin * single_plan.n_post, last = (b.st.row_begin + b.st.rows) * single_plan.n_post;
  for (int v = SYN_U; v < NUM_ADEX_VARS; ++v)
    for (std::int64_t id = first; id < last; ++id)
      if (single_plan.connected(id / single_plan.n_post, id % single_plan.n_post)) differ += !same(a(v, id), b(v, id));
  single.finish(r1);
  dist.finish(r2);
  differ += r1.figure("neuron_spikes") != r2.figure("neuron_spikes");
  differ += r1.figure("post_events") != r2.figure("post_events");
  long long total = 0;
  MPI_Allreduce(&differ, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

const char* const kCases[][2] = {
    {"architecture = \"mxm\"\nneurons = 200", "pattern = \"all\""},  // 4 blocks
    {"architecture = \"mxm\"\nneurons = 130\nconnectivity = \"half\"\nparity = \"pre_even\"", "pattern = \"even\""},
    {"architecture = \"mxm\"\nneurons = 90", "pattern = \"model\""},  // 2 blocks: ranks 3 and 4 hold none
    {"architecture = \"nxm\"\ninputs = 260\nneurons = 7", "pattern = \"poisson_gaussian\"\npositions = [25, 175]\nphase_steps = [20]"},
};

}  // namespace

TEST_SUITE("mpi_adex") {
  TEST_CASE_TEMPLATE_DEFINE("adex_costa over ranks is bit-identical to one process", Backend, mpi_adex_identity) {
    for (const auto& c : kCases) {
      CAPTURE(c[0]);
      CAPTURE(c[1]);
      const ExperimentConfig cfg = parse_model_experiment(adex_case(c[0], c[1]), "case.toml");
      const AdexPlan plan = make_adex_plan(cfg, {});
      CHECK(differing_values<Backend, double>(plan) == 0);
      CHECK(differing_values<Backend, float>(plan) == 0);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(mpi_adex_identity, KBRAIN_TEST_BACKENDS);

  TEST_CASE("row blocks split over ranks: contiguous, whole blocks, every row once") {
    for (int ranks = 1; ranks <= 5; ++ranks) {
      std::int64_t next = 0;
      for (int r = 0; r < ranks; ++r) {
        const auto [first, rows] = rank_rows(1000, 64, r, ranks);
        if (rows == 0) continue;
        CHECK(first == next);
        CHECK(first % 64 == 0);
        next = first + rows;
      }
      CHECK(next == 1000);
    }
  }
}
