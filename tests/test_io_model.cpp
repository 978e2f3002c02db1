// IO model properties on every backend: host backends bit-identical to Serial, mesh kernel == CSR kernel,
// border semantics, gate-step modes, and the counter RNG evaluated inside kernels.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "backends/serial/serial_backend.hpp"
#include "core/inputs/g_cal.hpp"
#include "core/network/gap_network.hpp"
#include "core/rng/counter_rng.hpp"
#include "models/olive/cell/io_step.hpp"
#include "models/olive/cell/io_step_ops.hpp"
#include "models/olive/drivers/io_simulation.hpp"
#include "models/olive/gap/io_gap_junctions.hpp"
#include "tests/backend_types.hpp"
#include "tests/io_test_support.hpp"

namespace {

using namespace kbrain;

std::vector<double> heterogeneous_g_cal(std::int64_t cells) {
  GCaLConfig g;
  g.kind = "uniform";
  g.low = 0.6;
  g.high = 0.8;
  g.seed = 7;
  return make_g_cal(g, cells);
}

// Runs `steps` with a pulse early on (so cells spike and diverge), returns every variable of every cell.
template <class Backend, class Real>
std::vector<std::vector<double>> simulate(const GapNetwork& net, const std::vector<double>& g_cal, int steps,
                                          bool mesh_kernel, olive::IoParameters p = {},
                                          olive::GapKernelRequest request = olive::GapKernelRequest::Auto) {
  olive::IoSimulation<Backend, Real> sim(p, net, g_cal, mesh_kernel, request);
  return test::run_pulse_and_read_state(sim, steps);
}

using test::max_abs_diff;

template <class Backend>
struct RngKernel {
  using Mem = typename Backend::memory_space;
  Kokkos::View<std::uint64_t*, Mem> bits;
  Kokkos::View<double*, Mem> uniform;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    bits(i) = counter_random_u64(12345, i, 3);
    uniform(i) = counter_uniform(99, i, 0);
  }
};

// A number that counts the operations done on it (io_step_ops.hpp's rules: +, -, *, / one each, negation free).
// Its functions are host-and-device, as the kernels' are (a CUDA build compiles them both ways), and count on the host
// only: the test runs them there.
struct OpCount {
  static inline long arithmetic = 0, exps = 0;
  KOKKOS_INLINE_FUNCTION static void arithmetic_op() {
#ifndef __CUDA_ARCH__
    ++arithmetic;
#endif
  }
  KOKKOS_INLINE_FUNCTION static void exp_op() {
#ifndef __CUDA_ARCH__
    ++exps;
#endif
  }
};
template <class T>
struct Counted {
  T v{};
  Counted() = default;
  KOKKOS_INLINE_FUNCTION Counted(double x) : v(static_cast<T>(x)) {}  // NOLINT: literals convert as Real(x) does
  KOKKOS_INLINE_FUNCTION friend Counted operator+(Counted a, Counted b) { OpCount::arithmetic_op(); return Counted(a.v + b.v); }
  KOKKOS_INLINE_FUNCTION friend Counted operator-(Counted a, Counted b) { OpCount::arithmetic_op(); return Counted(a.v - b.v); }
  KOKKOS_INLINE_FUNCTION friend Counted operator*(Counted a, Counted b) { OpCount::arithmetic_op(); return Counted(a.v * b.v); }
  KOKKOS_INLINE_FUNCTION friend Counted operator/(Counted a, Counted b) { OpCount::arithmetic_op(); return Counted(a.v / b.v); }
  KOKKOS_INLINE_FUNCTION Counted operator-() const { return Counted(-v); }
  KOKKOS_INLINE_FUNCTION Counted& operator+=(Counted b) { return *this = *this + b; }
  KOKKOS_INLINE_FUNCTION friend bool operator<(Counted a, Counted b) { return a.v < b.v; }
  KOKKOS_INLINE_FUNCTION friend bool operator>=(Counted a, Counted b) { return a.v >= b.v; }
  KOKKOS_INLINE_FUNCTION friend bool operator==(Counted a, Counted b) { return a.v == b.v; }
};
struct CountingMath {
  template <class R>
  KOKKOS_INLINE_FUNCTION static R exp(R x) {
    OpCount::exp_op();
    return R(kx::exp(double(x.v)));
  }
  template <class R>
  KOKKOS_INLINE_FUNCTION static R gap_exp(R x) { return exp(x); }
  template <class R>
  KOKKOS_INLINE_FUNCTION static R div(R a, R b) { return a / b; }
};

// One cell update and one junction term of the kernels' code, counted with Counted<T> (T = double or float: the
// Real whose size picks the kernels' double or float path).
template <class T>
std::pair<olive::IoOps, olive::IoOps> counted_ops() {
  using R = Counted<T>;
  static_assert(sizeof(R) == sizeof(T), "the kernels choose their path by sizeof(Real)");
  using Mem = Kokkos::HostSpace;
  olive::IoStepFunctor<Kokkos::DefaultHostExecutionSpace, R, olive::MeshGapJunctions<R, Mem>> f;
  f.c = olive::IoConstants<R>::make(olive::io_parameter_set("reference"));
  Kokkos::View<R*, Mem> g_cal("counted_g_cal", 1);
  g_cal(0) = R(0.68);
  f.g_cal = g_cal;
  olive::CellVariables<R> in, out;
  for (int v = 0; v < olive::NUM_VARS; ++v) in.v[v] = R(olive::kInitialState[std::size_t(v)]);
  OpCount::arithmetic = OpCount::exps = 0;
  (void)f.template update_cell<CountingMath>(in, out, 0, R(-60.0), R(-61.0), R(-62.0), R(0.1), R(0.0));
  const olive::IoOps cell{int(OpCount::arithmetic), int(OpCount::exps)};
  OpCount::arithmetic = OpCount::exps = 0;
  R ic = 0;
  const R vd = R(-60.0), vd_j = R(-58.0);
  ic += olive::gap_term_scaled<CountingMath>(R(0.032), R(0.008), vd - vd_j);
  const olive::IoOps junction{int(OpCount::arithmetic), int(OpCount::exps)};
  return {cell, junction};
}

}  // namespace

TEST_SUITE("io_model") {
  TEST_CASE("operations: the stated counts per cell update and per junction are the kernels' own") {
    const auto counted_d = counted_ops<double>(), counted_f = counted_ops<float>();
    const olive::IoOps cell_d = counted_d.first, junction_d = counted_d.second;
    const olive::IoOps cell_f = counted_f.first, junction_f = counted_f.second;
    CAPTURE(cell_d.arithmetic);
    CAPTURE(cell_d.exps);
    CAPTURE(cell_f.arithmetic);
    CAPTURE(cell_f.exps);
    CAPTURE(junction_d.arithmetic);
    CAPTURE(junction_d.exps);
    CHECK(cell_d.arithmetic == olive::kIoCellOpsDouble.arithmetic);
    CHECK(cell_d.exps == olive::kIoCellOpsDouble.exps);
    CHECK(cell_f.arithmetic == olive::kIoCellOpsFloat.arithmetic);
    CHECK(cell_f.exps == olive::kIoCellOpsFloat.exps);
    for (const auto& j : {junction_d, junction_f}) {
      CHECK(j.arithmetic == olive::kIoJunctionOps.arithmetic);
      CHECK(j.exps == olive::kIoJunctionOps.exps);
    }
  }
}

TEST_SUITE("io_model") {
  TEST_CASE_TEMPLATE_DEFINE("state after 400 steps matches Serial (bit-identical on CPU backends)", Backend,
                            io_matches_serial) {
    const GapNetwork net = make_mesh2d(9, 7, 0.04);
    const auto g = heterogeneous_g_cal(net.cells);
    for (bool mesh_kernel : {true, false}) {
      CAPTURE(mesh_kernel);
      const auto ref = simulate<SerialBackend, double>(net, g, 400, mesh_kernel);
      const auto got = simulate<Backend, double>(net, g, 400, mesh_kernel);
      const double diff = max_abs_diff(ref, got);
      if (Backend::is_gpu)
        CHECK(diff < 1e-9);
      else
        CHECK(diff == 0.0);
      const auto ref_f = simulate<SerialBackend, float>(net, g, 400, mesh_kernel);
      const auto got_f = simulate<Backend, float>(net, g, 400, mesh_kernel);
      if (Backend::is_gpu)
        CHECK(max_abs_diff(ref_f, got_f) < 1e-2);
      else
        CHECK(max_abs_diff(ref_f, got_f) == 0.0);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(io_matches_serial, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("chained launch (CUDA: programmatic dependent launch): the same state and spikes", Backend,
                            io_chained_launch) {
    // 40 x 33 cells (1320: several blocks, a partial last one), mesh and CSR kernels, one step per launch. On
    // backends without a chained launch both runs use Kokkos::parallel_for.
    const GapNetwork net = make_mesh2d(40, 33, 0.04);
    const auto g = heterogeneous_g_cal(net.cells);
    for (bool mesh_kernel : {true, false}) {
      CAPTURE(mesh_kernel);
      std::vector<std::vector<double>> state[2];
      typename olive::IoSimulation<Backend, double>::SpikeEvents spikes[2];
      for (const bool chained : {true, false}) {
        olive::GapStrategy strategy = olive::IoSimulation<Backend, double>(olive::IoParameters{}, net, g, mesh_kernel).strategy();
        strategy.chained_launch = chained;
        olive::IoSimulation<Backend, double> sim(olive::IoParameters{}, net, g, mesh_kernel, strategy);
        sim.enable_spikes(-20.0);
        for (int n = 0; n < 400; ++n) {
          sim.step(n >= 50 && n < 150 ? 6.0 : 0.0);
          if ((n + 1) % 100 == 0) {
            const auto e = sim.drain_spikes();
            spikes[chained].insert(spikes[chained].end(), e.begin(), e.end());
          }
        }
        for (int v = 0; v < olive::NUM_VARS; ++v) state[chained].push_back(sim.variable(v));
      }
      CHECK(max_abs_diff(state[0], state[1]) == 0.0);
      CHECK(spikes[0] == spikes[1]);
      CHECK(!spikes[1].empty());
    }
  }
  TEST_CASE_TEMPLATE_APPLY(io_chained_launch, KBRAIN_TEST_BACKENDS);

  // Optional members of trait types (core/detected.hpp): the fused CSR step's exponential, none for the mesh, and
  // no chained launch on the host.
  static_assert(std::is_same_v<olive::FusedGapMath<olive::CsrGapJunctions<double, Kokkos::HostSpace>>, olive::GapKernelMath>);
  static_assert(std::is_same_v<olive::FusedGapMath<olive::MeshGapJunctions<double, Kokkos::HostSpace>>, olive::NativeMath>);
  static_assert(!olive::kHasChainedLaunch<SerialBackend>);

  TEST_CASE_TEMPLATE_DEFINE("fused CSR step: every launch bound gives the same state", Backend, io_csr_launch_bounds) {
    // A mesh as CSR (at most 8 junctions per cell: 4 blocks per SM by default) and all-to-all among 64 cells
    // (63 per cell: 2 blocks per SM in double, 4 in float; csr_step_min_blocks in io_step_launch.hpp).
    for (const int all_to_all : {0, 1}) {
      CAPTURE(all_to_all);
      const GapNetwork net = all_to_all ? make_all_to_all(64, 0.004) : make_mesh2d(40, 33, 0.04);
      const auto g = heterogeneous_g_cal(net.cells);
      std::vector<std::vector<double>> reference;
      for (const int min_blocks : {0, 2, 4}) {  // 0: the chooser's
        CAPTURE(min_blocks);
        olive::GapStrategy strategy = olive::IoSimulation<Backend, double>(olive::IoParameters{}, net, g, false).strategy();
        if (min_blocks != 0) strategy.csr_min_blocks = min_blocks;
        olive::IoSimulation<Backend, double> sim(olive::IoParameters{}, net, g, false, strategy);
        CHECK(sim.csr_step_min_blocks() == (min_blocks != 0 ? min_blocks : all_to_all ? 2 : 4));
        const auto state = test::run_pulse_and_read_state(sim, 300);
        if (reference.empty())
          reference = state;
        else
          CHECK(max_abs_diff(reference, state) == 0.0);
      }
      CHECK(olive::IoSimulation<Backend, float>(olive::IoParameters{}, net, g, false).csr_step_min_blocks() == 4);
    }
    olive::GapStrategy five;
    five.csr_min_blocks = 5;
    using Sim = olive::IoSimulation<Backend, double>;
    CHECK_THROWS_AS(Sim(olive::IoParameters{}, make_mesh2d(4, 4, 0.04), heterogeneous_g_cal(16), false, five),
                    std::invalid_argument);
  }
  TEST_CASE_TEMPLATE_APPLY(io_csr_launch_bounds, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("mesh kernel equals the CSR kernel on the same mesh", Backend, io_mesh_vs_csr) {
    // 6 x 11: every host chunk touches the first or last row (neighbour-index path). 23 x 37: most chunks lie
    // within the inner rows (contiguous-load path) and wrap across rows, so the column test is exercised.
    for (const int rows : {6, 23}) {
      CAPTURE(rows);
      const GapNetwork net = make_mesh2d(rows, rows == 6 ? 11 : 37, 0.04);
      const auto g = heterogeneous_g_cal(net.cells);
      const auto a = simulate<Backend, double>(net, g, 300, true);
      const auto b = simulate<Backend, double>(net, g, 300, false);
      CHECK(max_abs_diff(a, b) == 0.0);
      const auto af = simulate<Backend, float>(net, g, 300, true);
      const auto bf = simulate<Backend, float>(net, g, 300, false);
      CHECK(max_abs_diff(af, bf) == 0.0);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(io_mesh_vs_csr, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("split (warp-per-cell) gap currents agree with the fused kernel", Backend, io_gap_split) {
    GapNetwork net = make_all_to_all(48, 0.04);  // 47 junctions per cell: the GPU default would split
    const auto g = heterogeneous_g_cal(net.cells);
    for (bool per_junction_g : {false, true}) {
      CAPTURE(per_junction_g);
      if (per_junction_g) {
        net.conductance.resize(net.sources.size());
        for (std::size_t k = 0; k < net.sources.size(); ++k) net.conductance[k] = 0.01 + 0.001 * double(k % 37);
      }
      const auto fused = simulate<Backend, double>(net, g, 300, false, {}, olive::GapKernelRequest::Fused);
      const auto split = simulate<Backend, double>(net, g, 300, false, {}, olive::GapKernelRequest::Split);
      const auto serial = simulate<SerialBackend, double>(net, g, 300, false, {}, olive::GapKernelRequest::Fused);
      if (Backend::is_gpu) {  // lanes add in a tree: rounding differs
        CHECK(max_abs_diff(fused, split) < 1e-9);
        CHECK(max_abs_diff(serial, split) < 1e-9);
      } else {  // one lane per cell: the same order, the same bits
        CHECK(max_abs_diff(fused, split) == 0.0);
        CHECK(max_abs_diff(serial, split) == 0.0);
      }
      CHECK(split[olive::V_DEND][0] != split[olive::V_DEND][1]);  // coupled cells with different g_CaL do differ
    }
  }
  TEST_CASE_TEMPLATE_APPLY(io_gap_split, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("mesh border: missing neighbours contribute nothing", Backend, io_mesh_border) {
    // Identical cells on a mesh stay identical: border cells (fewer neighbours) feel no extra current.
    const GapNetwork mesh = make_mesh2d(5, 5, 0.04);
    const auto s = simulate<Backend, double>(mesh, std::vector<double>(25, 0.68), 300, true);
    for (int v = 0; v < olive::NUM_VARS; ++v)
      for (int i = 1; i < 25; ++i) CHECK(s[v][i] == s[v][0]);
    // A 1x2 mesh is the same network as 2 cells all-to-all: identical trajectories with different g_CaL.
    const std::vector<double> g2 = {0.62, 0.78};
    const auto m = simulate<Backend, double>(make_mesh2d(1, 2, 0.04), g2, 300, true);
    const auto a = simulate<Backend, double>(make_all_to_all(2, 0.04), g2, 300, false);
    CHECK(max_abs_diff(m, a) == 0.0);
    CHECK(m[olive::V_DEND][0] != m[olive::V_DEND][1]);  // the cells did differ, so coupling was exercised
  }
  TEST_CASE_TEMPLATE_APPLY(io_mesh_border, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("gate-step modes: reference == corrected at dt 0.05, differ at dt 0.025", Backend,
                            io_gate_modes) {
    const GapNetwork net = make_all_to_all(3, 0.04);
    const std::vector<double> g = {0.6, 0.7, 0.8};
    olive::IoParameters ref, cor;
    cor.gate_mode = olive::GateStepMode::Corrected;
    CHECK(max_abs_diff(simulate<Backend, double>(net, g, 200, false, ref),
                       simulate<Backend, double>(net, g, 200, false, cor)) == 0.0);
    ref.dt = cor.dt = 0.025;
    CHECK(max_abs_diff(simulate<Backend, double>(net, g, 200, false, ref),
                       simulate<Backend, double>(net, g, 200, false, cor)) > 1e-6);
  }
  TEST_CASE_TEMPLATE_APPLY(io_gate_modes, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("counter RNG inside kernels equals the host values bit for bit", Backend, io_rng) {
    using Mem = typename Backend::memory_space;
    constexpr int n = 1000;
    RngKernel<Backend> k{Kokkos::View<std::uint64_t*, Mem>("bits", n), Kokkos::View<double*, Mem>("u", n)};
    Kokkos::parallel_for(Kokkos::RangePolicy<typename Backend::execution_space>(0, n), k);
    auto bits = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k.bits);
    auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k.uniform);
    for (int i = 0; i < n; ++i) {
      REQUIRE(bits(i) == counter_random_u64(12345, i, 3));
      REQUIRE(u(i) == counter_uniform(99, i, 0));
    }
    CHECK(bits(0) != bits(1));
  }
  TEST_CASE_TEMPLATE_APPLY(io_rng, KBRAIN_TEST_BACKENDS);
}

TEST_SUITE("io_model") {
  TEST_CASE("gap strategy chooser: the defaults, the requests and their limits") {
    using olive::GapKernel;
    using olive::GapKernelRequest;
    const auto input = [](bool mesh, bool lattice, double degree, bool gpu, bool dbl) {
      olive::GapChoiceInput in;
      in.cells = 1000;
      in.junctions = mesh ? 0.0 : degree * 1000;
      in.mesh = mesh;
      in.lattice = lattice;
      in.gpu = gpu;
      in.double_precision = dbl;
      return in;
    };
    const auto kernel = [](const olive::GapChoiceInput& in, GapKernelRequest r = GapKernelRequest::Auto) {
      return olive::choose_gap_strategy(in, r).kernel;
    };
    // mesh: two steps per launch on GPUs in float only; requests do not change a mesh
    CHECK(kernel(input(true, false, 0, true, false)) == GapKernel::MeshPairs);
    CHECK(kernel(input(true, false, 0, true, true)) == GapKernel::Mesh);
    CHECK(kernel(input(true, false, 0, false, false)) == GapKernel::Mesh);
    CHECK(kernel(input(true, false, 0, true, false), GapKernelRequest::Split) == GapKernel::MeshPairs);
    // CSR: split on GPUs in float from kSplitMinDegree, tiled on GPU lattices from kTiledMinDegree
    CHECK(kernel(input(false, false, 1000, true, false)) == GapKernel::Split);
    CHECK(kernel(input(false, false, 1000, true, true)) == GapKernel::Fused);
    CHECK(kernel(input(false, false, 100, true, false)) == GapKernel::Fused);
    CHECK(kernel(input(false, false, 1000, false, false)) == GapKernel::Fused);
    CHECK(kernel(input(false, true, 1000, true, true)) == GapKernel::Tiled);
    CHECK(kernel(input(false, true, 1000, true, false)) == GapKernel::Tiled);
    CHECK(kernel(input(false, true, 100, true, false)) == GapKernel::Fused);
    CHECK(kernel(input(false, true, 1000, false, true)) == GapKernel::Fused);
    // requests
    CHECK(kernel(input(false, true, 1000, true, false), GapKernelRequest::Fused) == GapKernel::Fused);
    CHECK(kernel(input(false, true, 1000, true, false), GapKernelRequest::Split) == GapKernel::Split);
    CHECK(kernel(input(false, true, 10, false, true), GapKernelRequest::Tiled) == GapKernel::Tiled);
    CHECK(kernel(input(false, false, 10, false, true), GapKernelRequest::Split) == GapKernel::Split);
    CHECK_THROWS_WITH_AS(kernel(input(false, false, 10, true, true), GapKernelRequest::Tiled),
                         doctest::Contains("lattice"), std::invalid_argument);
    // launch details: chained launch in double; the fused CSR step's blocks per SM
    CHECK(olive::choose_gap_strategy(input(true, false, 0, true, true)).chained_launch);
    CHECK_FALSE(olive::choose_gap_strategy(input(true, false, 0, true, false)).chained_launch);
    CHECK(olive::choose_gap_strategy(input(false, false, 100, true, true)).csr_min_blocks == 2);
    CHECK(olive::choose_gap_strategy(input(false, false, 10, true, true)).csr_min_blocks == 4);
    CHECK(olive::choose_gap_strategy(input(false, false, 100, true, false)).csr_min_blocks == 4);
    // names as run.json records them
    CHECK(olive::gap_kernel_name(GapKernel::Mesh) == "mesh");
    CHECK(olive::gap_kernel_name(GapKernel::MeshPairs) == "mesh, 2 steps per launch");
    CHECK(olive::gap_kernel_name(GapKernel::Fused) == "CSR");
    CHECK(olive::gap_kernel_name(GapKernel::Split) == "CSR split");
    // the request's spelling
    CHECK(olive::parse_gap_kernel_request("auto") == GapKernelRequest::Auto);
    CHECK(olive::parse_gap_kernel_request("fused") == GapKernelRequest::Fused);
    CHECK(olive::parse_gap_kernel_request("split") == GapKernelRequest::Split);
    CHECK(olive::parse_gap_kernel_request("tiled") == GapKernelRequest::Tiled);
    CHECK_THROWS_AS(olive::parse_gap_kernel_request("mesh"), std::invalid_argument);
  }
}
