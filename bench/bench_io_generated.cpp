// Google Benchmark: the IO step on generated networks (made on the backend, as `kbrain run` does), per gap
// strategy and its variants (bench/README.md, "IO step, generated networks").
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "backends/registry.hpp"
#include "bench/bench_steps.hpp"
#include "core/network/generate_network.hpp"
#include "models/olive/drivers/io_simulation.hpp"
#include "models/olive/launch/gap_strategy.hpp"

namespace {

using namespace kbrain;
using bench::steps_per_iteration;

struct GapVariant;
using GeneratedBench = void (*)(benchmark::State&, RandomNetworkSpec::Kind, std::int64_t, double, const GapVariant&);

// The gap-junction strategy a benchmark forces (a GapKernelRequest, then the strategy's details).
struct GapVariant {
  std::string name;  // fused, fused_lbN, split, tiled (default cut), tiled_B_H, tiled_table, tiled_branchy /
                     // tiled_branch_free, tiled_branch_free_4teams (default cut, another olive::TiledKernel)
  olive::GapKernelRequest request = olive::GapKernelRequest::Fused;
  int brick = 0, halo = 0;  // tiled: the cut (0: default_tiling)
  int csr_min_blocks = 0;   // fused_lbN: GapStrategy::csr_min_blocks = N; 0: the chooser's (csr_step_min_blocks)
  GeneratedBench bench = nullptr;  // another TiledKernel's instantiation of bm_io_generated; null: the default
};

// IO step on a generated network (made on the backend, as `kbrain run` does): fused kernel (one thread per cell
// sums its junctions) vs split (a warp per cell computes the gap currents first, io_gap_split.hpp) vs tiled
// (lattice networks: a brick's surroundings staged in team scratch, io_gap_tiled.hpp).
//   ns_per_cell_step   in_cube: fraction of junctions the tiled kernel reads from the staged cube
template <class Backend, class Real, class Tiled = olive::DefaultTiledKernel<Real>>
void bm_io_generated(benchmark::State& state, RandomNetworkSpec::Kind kind, std::int64_t cells, double density,
                     const GapVariant& variant) {
  using Exec = typename Backend::execution_space;
  using Sim = olive::IoSimulation<Backend, Real, olive::KernelVariants<Tiled>>;
  RandomNetworkSpec spec;
  spec.kind = kind;
  spec.cells = cells;
  spec.density = density;
  spec.seed = 3;
  const auto generated = generate_network<Exec, Real>(make_random_network_tables(spec));
  std::vector<double> g_cal(cells);
  for (std::int64_t i = 0; i < cells; ++i) g_cal[i] = 0.6 + 0.2 * double(i % 97) / 97.0;
  const auto network = olive::DeviceGapNetwork<Real, typename Backend::memory_space>::from_views(
      cells, generated.offsets, generated.sources, generated.g, generated.g_const, generated.lattice_side);
  olive::GapStrategy strategy = olive::choose_gap_strategy(Sim::choice_input(network), variant.request);
  strategy.tile_brick = variant.brick;
  strategy.tile_halo = variant.halo;
  if (variant.csr_min_blocks != 0) strategy.csr_min_blocks = variant.csr_min_blocks;
  Sim sim(olive::IoParameters{}, network, g_cal, strategy);
  if (variant.request == olive::GapKernelRequest::Tiled) {
    const auto [in, out] = sim.tiled_junctions();
    state.counters["in_cube"] = double(in) / double(std::max<std::int64_t>(1, in + out));
  }
  const int steps = steps_per_iteration<Backend>();
  for (int n = 0; n < 5; ++n) sim.step(0.0);
  sim.fence();
  for (auto _ : state) {
    for (int n = 0; n < steps; ++n) sim.step(n == 0 ? 6.0 : 0.0);
    sim.fence();
  }
  const double cell_steps = double(cells) * steps;
  state.counters["ns_per_cell_step"] =
      benchmark::Counter(cell_steps * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["junctions_per_second"] = benchmark::Counter(
      double(generated.junctions()) * steps, benchmark::Counter::kIsIterationInvariantRate);
}

template <class Backend>
void register_generated(const std::string& b) {
  // generated networks: GPU at the study's scale (1M cells x 10/100/1000, 4M x 1000 of both kinds); host small
  struct Gen {
    RandomNetworkSpec::Kind kind;
    std::int64_t cells;
    double density;
  };
  std::vector<Gen> gens = {{RandomNetworkSpec::Kind::Uniform, 65536, 100}};
  if (Backend::is_gpu)
    gens = {{RandomNetworkSpec::Kind::Uniform, 1048576, 10},     {RandomNetworkSpec::Kind::Uniform, 1048576, 100},
            {RandomNetworkSpec::Kind::Uniform, 1048576, 1000},   {RandomNetworkSpec::Kind::Gaussian3d, 1048576, 100},
            {RandomNetworkSpec::Kind::Gaussian3d, 1048576, 1000}, {RandomNetworkSpec::Kind::Uniform, 4194304, 1000},
            {RandomNetworkSpec::Kind::Gaussian3d, 4194304, 1000}};
  using olive::GapKernelRequest;
  using olive::TiledKernel;
  std::vector<GapVariant> csr_variants = {{"fused", GapKernelRequest::Fused}, {"split", GapKernelRequest::Split}};
  if (Backend::is_gpu)  // the fused step with fixed launch bounds (by default 2 or 4 blocks per SM, io_step_launch.hpp)
    for (int lb : {2, 4}) csr_variants.push_back({"fused_lb" + std::to_string(lb), GapKernelRequest::Fused, 0, 0, lb});
  // Tiled cuts: the default (largest cube in 40 KiB: 21^3 floats, 17^3 doubles) and its neighbours.
  // tiled_table, tiled_branchy, tiled_branch_free(_4teams): the default cut with another olive::TiledKernel: the
  // table exponential (double only), a branch per junction (the double default), none (the float default), and 4
  // teams per SM (double).
  const GapKernelRequest tiled = GapKernelRequest::Tiled;
  const std::vector<GapVariant> float_tiles = {
      {"tiled", tiled},
      {"tiled_branchy", tiled, 0, 0, 0, &bm_io_generated<Backend, float, TiledKernel<olive::GapKernelMath, true, 6>>},
      {"tiled_5_8", tiled, 5, 8},
      {"tiled_9_6", tiled, 9, 6}};
  const std::vector<GapVariant> double_tiles = {
      {"tiled", tiled},
      {"tiled_table", tiled, 0, 0, 0, &bm_io_generated<Backend, double, TiledKernel<olive::GapKernelMath, true, 5>>},
      {"tiled_branch_free", tiled, 0, 0, 0,
       &bm_io_generated<Backend, double, TiledKernel<olive::GapKernelTableFreeMath, false, 5>>},
      {"tiled_branch_free_4teams", tiled, 0, 0, 0,
       &bm_io_generated<Backend, double, TiledKernel<olive::GapKernelTableFreeMath, false, 4>>},
      {"tiled_3_7", tiled, 3, 7},
      {"tiled_9_4", tiled, 9, 4}};
  for (const Gen& g : gens) {
    const bool lattice = g.kind == RandomNetworkSpec::Kind::Gaussian3d;
    const std::string tag = std::string(lattice ? "gaussian3d/" : "uniform/") + std::to_string(g.cells) + "/" +
                            std::to_string(int(g.density)) + "/";
    auto register_variants = [&](auto real, const char* precision, const std::vector<GapVariant>& tiles) {
      using Real = decltype(real);
      auto variants = csr_variants;
      if (lattice) variants.insert(variants.end(), tiles.begin(), tiles.end());
      for (const GapVariant& v : variants)
        benchmark::RegisterBenchmark(("io_step_generated/" + b + "/" + precision + "/" + tag + v.name).c_str(),
                                     [=](benchmark::State& s) {
                                       const GeneratedBench run = v.bench ? v.bench : &bm_io_generated<Backend, Real>;
                                       run(s, g.kind, g.cells, g.density, v);
                                     })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    };
    register_variants(float{}, "float", float_tiles);
    register_variants(double{}, "double", double_tiles);
  }
}

}  // namespace

namespace kbrain::bench {
void register_io_generated_benchmarks() {
  for_each_backend([](auto tag) {
    using Backend = typename decltype(tag)::type;
    register_generated<Backend>(Backend::name);
  });
}
}  // namespace kbrain::bench
