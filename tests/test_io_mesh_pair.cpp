// Two steps per launch on the mesh (models/olive/launch/io_mesh_pair.hpp, the mesh-pairs GapStrategy) on every backend:
// the state and the spikes equal those of one-step launches bit for bit, for meshes smaller than a tile, with
// partial tiles and a single row, in float and double, with held-back steps launched alone where a per-cell
// current or a read of the state needs it.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/network/gap_network.hpp"
#include "models/olive/drivers/io_simulation.hpp"
#include "tests/backend_types.hpp"
#include "tests/io_test_support.hpp"

namespace {

using namespace kbrain;

struct Run {
  std::vector<std::vector<double>> state, midway;
  std::vector<std::pair<std::int64_t, std::int64_t>> spikes;
  bool pairs = false;
};

// 301 steps: I_app 6 on steps 50..149, per-cell currents on steps 77 and 78, every variable read after step 101.
template <class Backend, class Real>
Run run(const GapNetwork& net, bool pairs) {
  std::vector<double> g_cal(net.cells), per_cell(net.cells);
  for (std::int64_t i = 0; i < net.cells; ++i) {
    g_cal[i] = 0.6 + 0.2 * double(i % 13) / 13.0;
    per_cell[i] = double(i % 5) - 2.0;
  }
  olive::GapStrategy strategy = olive::IoSimulation<Backend, Real>(olive::IoParameters{}, net, g_cal, true).strategy();
  strategy.kernel = pairs ? olive::GapKernel::MeshPairs : olive::GapKernel::Mesh;
  // host: the plain one-cell kernel, whose Math the pair kernel uses
  olive::IoSimulation<Backend, Real, olive::ScalarHostKernels<Real>> sim(olive::IoParameters{}, net, g_cal, true,
                                                                          strategy);
  sim.enable_spikes(-20.0);
  Run out;
  out.pairs = sim.step_pairs();
  for (int n = 0; n < 301; ++n) {
    sim.step(n >= 50 && n < 150 ? 6.0 : 0.0, n == 77 || n == 78 ? &per_cell : nullptr);
    if (n + 1 == 101)
      for (int v = 0; v < olive::NUM_VARS; ++v) out.midway.push_back(sim.variable(v));
  }
  CHECK(sim.steps_done() == 301);
  out.spikes = sim.drain_spikes();
  for (int v = 0; v < olive::NUM_VARS; ++v) out.state.push_back(sim.variable(v));
  return out;
}

template <class Backend, class Real>
void check_pairs_equal_single_steps(const GapNetwork& net) {
  const Run one = run<Backend, Real>(net, false), two = run<Backend, Real>(net, true);
  CHECK_FALSE(one.pairs);
  CHECK(two.pairs);
  CHECK(test::max_abs_diff(one.state, two.state) == 0.0);
  CHECK(test::max_abs_diff(one.midway, two.midway) == 0.0);
  CHECK(one.spikes.size() > 0);  // the pulse makes cells spike: the spike path is exercised
  CHECK(one.spikes == two.spikes);
}

}  // namespace

TEST_SUITE("io_mesh_pair") {
  TEST_CASE_TEMPLATE_DEFINE("two steps per launch equal one-step launches bit for bit", Backend, io_mesh_pair) {
    // 5 x 7: smaller than one tile. 23 x 70: tiles of 8 x 32 cells (6 x 30 inner) with partial tiles at the
    // bottom and the right. 1 x 45: a single row.
    for (const auto& shape : {std::pair<int, int>{5, 7}, {23, 70}, {1, 45}}) {
      CAPTURE(shape.first);
      CAPTURE(shape.second);
      const GapNetwork net = make_mesh2d(shape.first, shape.second, 0.04);
      check_pairs_equal_single_steps<Backend, double>(net);
      check_pairs_equal_single_steps<Backend, float>(net);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(io_mesh_pair, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("step pairs by default on GPU backends in float, mesh kernel only", Backend,
                            io_mesh_pair_default) {
    const GapNetwork net = make_mesh2d(4, 4, 0.04);
    const std::vector<double> g_cal(net.cells, 0.7);
    olive::IoSimulation<Backend, float> mesh_f(olive::IoParameters{}, net, g_cal, true);
    olive::IoSimulation<Backend, double> mesh_d(olive::IoParameters{}, net, g_cal, true);
    olive::IoSimulation<Backend, float> csr_f(olive::IoParameters{}, net, g_cal, false);
    CHECK(mesh_f.step_pairs() == Backend::is_gpu);
    CHECK_FALSE(mesh_d.step_pairs());
    CHECK_FALSE(csr_f.step_pairs());
    olive::GapStrategy pairs;
    pairs.kernel = olive::GapKernel::MeshPairs;
    using Sim = olive::IoSimulation<Backend, float>;
    CHECK_THROWS_AS(Sim(olive::IoParameters{}, net, g_cal, false, pairs), std::invalid_argument);  // CSR: no pairs
  }
  TEST_CASE_TEMPLATE_APPLY(io_mesh_pair_default, KBRAIN_TEST_BACKENDS);
}
