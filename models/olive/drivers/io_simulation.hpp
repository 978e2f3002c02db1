#pragma once
// Drives an IO network on one backend: owns the two state buffers, the per-cell g_CaL, the device network,
// the spike buffer and a sample buffer; enqueues one kernel per step, or per two steps (the mesh-pairs strategy),
// with no per-step host synchronisation. How the steps reach the gap junctions is one GapStrategy, chosen at
// construction (gap_strategy.hpp) from a GapKernelRequest, or given explicitly (tests, benchmarks).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "core/network/gap_network.hpp"
#include "models/olive/cell/io_parameters.hpp"
#include "models/olive/cell/io_state.hpp"
#include "models/olive/cell/io_step.hpp"
#include "models/olive/gap/io_gap_split.hpp"
#include "models/olive/gap/io_gap_tiled.hpp"
#include "models/olive/gap/io_network_device.hpp"
#include "models/olive/gap/io_tiled_kernel.hpp"
#include "models/olive/launch/gap_strategy.hpp"
#include "models/olive/launch/io_kernel_variants.hpp"
#include "models/olive/launch/io_mesh_pair.hpp"
#include "models/olive/launch/io_step_launch.hpp"
#include "models/olive/launch/olive_launch_traits.hpp"

namespace kbrain::olive {

template <class Backend, class Real, class Kernels = OliveKernels<Real>>
class IoSimulation {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;

  // The strategy chosen for `request` (choose_gap_strategy); a request the network cannot run throws
  // std::invalid_argument.
  IoSimulation(const IoParameters& params, const GapNetwork& net, const std::vector<double>& g_cal,
               bool use_mesh_kernel = true, GapKernelRequest request = GapKernelRequest::Auto)
      : IoSimulation(params, DeviceGapNetwork<Real, Mem>::upload(net, use_mesh_kernel), g_cal, request) {}

  // A network that is already in the execution space's memory (e.g. generated there: no host round trip).
  IoSimulation(const IoParameters& params, DeviceGapNetwork<Real, Mem> network, const std::vector<double>& g_cal,
               GapKernelRequest request = GapKernelRequest::Auto)
      : IoSimulation(params, std::move(network), g_cal, Chosen{request}) {}

  // An explicit strategy (tests, benchmarks); throws std::invalid_argument where the network cannot run it.
  IoSimulation(const IoParameters& params, const GapNetwork& net, const std::vector<double>& g_cal,
               bool use_mesh_kernel, const GapStrategy& strategy)
      : IoSimulation(params, DeviceGapNetwork<Real, Mem>::upload(net, use_mesh_kernel), g_cal, strategy) {}
  IoSimulation(const IoParameters& params, DeviceGapNetwork<Real, Mem> network, const std::vector<double>& g_cal,
               const GapStrategy& strategy)
      : cells_(network.cells), constants_(IoConstants<Real>::make(params)), network_(std::move(network)),
        strategy_(strategy) {
    check_g_cal(g_cal);
    check_strategy();
    init_state(g_cal);
    build_gap_lists();
  }

  // What the chooser reads of a network on this backend and precision.
  static GapChoiceInput choice_input(const DeviceGapNetwork<Real, Mem>& network) {
    GapChoiceInput in;
    in.cells = network.cells;
    in.junctions = network.mesh ? 0.0 : double(network.csr.sources.extent(0));
    in.mesh = network.mesh;
    in.lattice = network.lattice_side > 0;
    in.gpu = Backend::is_gpu;
    in.double_precision = sizeof(Real) == 8;
    return in;
  }

 private:
  struct Chosen {
    GapKernelRequest request;
  };
  IoSimulation(const IoParameters& params, DeviceGapNetwork<Real, Mem> network, const std::vector<double>& g_cal,
               Chosen chosen)
      : IoSimulation(params, network, g_cal, choose_gap_strategy(choice_input(network), chosen.request)) {}

  void check_g_cal(const std::vector<double>& g_cal) const {
    if (static_cast<std::int64_t>(g_cal.size()) != cells_)
      throw std::invalid_argument("g_CaL has " + std::to_string(g_cal.size()) + " values for " +
                                  std::to_string(cells_) + " cells");
  }

  void init_state(const std::vector<double>& g_cal) {
    state_.cur = StateView<Real, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "io_state_a"), NUM_VARS, cells_);
    state_.next = StateView<Real, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "io_state_b"), NUM_VARS, cells_);
    reset();
    g_cal_ = per_cell_view<Exec, Real, Mem>(g_cal, "g_cal");
  }

 public:

  // Back to the reference initial state, step 0.
  void reset() {
    pending_ = false;
    fill_initial_state<Exec>(state_.cur);
    fill_initial_state<Exec>(state_.next);  // overwritten by the first step; filled here for its first touch
    steps_done_ = 0;
  }

  // Spike detection: upward crossings of V_axon through `threshold`. Call drain_spikes() at least every
  // spike_drain_interval() steps (the buffer is sized so that no event can be lost in between).
  void enable_spikes(double threshold) {
    spike_threshold_ = Real(threshold);
    const std::int64_t cap = std::max<std::int64_t>(2 * cells_, std::min<std::int64_t>(64 * cells_, 16 << 20));
    spike_interval_ = 2 * (cap / cells_);  // a cell crosses upward at most once every 2 steps
    sink_.count = Kokkos::View<int, Mem>("spike_count");
    sink_.events = Kokkos::View<int*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "spike_events"), 2 * cap);
  }
  std::int64_t spike_drain_interval() const { return spike_interval_; }

  // Advances one step. i_app goes to every dendrite; per_cell (if given) is added per cell.
  // Mesh pairs: a step without per-cell current may be held back and launched together with the next one
  // (io_mesh_pair.hpp); everything that reads the state (state(), variable(), drain_spikes(), fence()) launches a
  // held step first, so callers see exactly the one-step results.
  void step(double i_app, const std::vector<double>* per_cell = nullptr) {
    if (steps_done_ >= INT32_MAX) throw std::runtime_error("more than 2^31-1 steps in one run");
    if (strategy_.kernel == GapKernel::MeshPairs && per_cell == nullptr) {
      if (pending_) {
        launch_mesh_pair<Exec, Real, Mem, PairLaunchBounds>(step_functor(network_.grid, pending_i_app_, false),
                                                            i_app, GpuLaunch::pair_tile_rows);
        state_.swap();
        pending_ = false;
      } else {
        pending_ = true;
        pending_i_app_ = i_app;
      }
      count_step();
      return;
    }
    flush();
    if (per_cell) upload_per_cell(*per_cell);
    launch_one(i_app, per_cell != nullptr);
    count_step();
  }

 private:
  void count_step() {
    ++steps_done_;
    if (sink_.events.extent(0) != 0 && steps_done_ % spike_interval_ == 0) pending_check_ = true;
  }

  // The step held back by step() (step pairs), launched alone.
  void flush() {
    if (!pending_) return;
    launch_one(pending_i_app_, false);  // while still pending: its functor numbers it steps_launched() + 1
    pending_ = false;
  }

  void launch_one(double i_app, bool with_per_cell) {
    switch (strategy_.kernel) {
      case GapKernel::Mesh:
      case GapKernel::MeshPairs: launch(network_.grid, i_app, with_per_cell); break;
      case GapKernel::Tiled:
        compute_tiled_gap_currents<Exec, Real, typename Kernels::tiled>(tiled_, state_.cur, i_gap_, Backend::is_gpu);
        launch(PrecomputedGapCurrents<Real, Mem>{i_gap_}, i_app, with_per_cell);
        break;
      case GapKernel::Split:
        compute_split_gap_currents<Exec, Real>(network_.csr, state_.cur, i_gap_, static_cast<int>(cells_),
                                               Backend::is_gpu);
        launch(PrecomputedGapCurrents<Real, Mem>{i_gap_}, i_app, with_per_cell);
        break;
      case GapKernel::Fused: launch(network_.csr, i_app, with_per_cell); break;
    }
    state_.swap();
  }

 public:

  // Spikes since the last drain, sorted by (step, cell); step = updates done when V_axon crossed.
  SpikeEvents drain_spikes() {
    flush();
    pending_check_ = false;
    return drain_spike_sink(sink_, [](int cell) { return std::int64_t(cell); });
  }
  bool spikes_due() const { return pending_check_; }

  // Copies one state variable of every cell to the host (tests, checkpoints; not for the hot loop).
  std::vector<double> variable(int var) {
    flush();
    auto row = Kokkos::subview(state_.cur, var, Kokkos::ALL());
    auto h = Kokkos::create_mirror_view(row);
    Kokkos::deep_copy(h, row);
    std::vector<double> out(cells_);
    for (std::int64_t i = 0; i < cells_; ++i) out[i] = h(i);
    return out;
  }

  const StateView<Real, Mem>& state() {
    flush();
    return state_.cur;
  }
  std::int64_t cells() const { return cells_; }
  std::int64_t steps_done() const { return steps_done_; }
  std::int64_t device_bytes() const {
    return static_cast<std::int64_t>(2 * NUM_VARS * cells_ * sizeof(Real) + cells_ * sizeof(Real) +
                                     i_gap_.extent(0) * sizeof(Real)) +
           network_.device_bytes() + tiled_.device_bytes();
  }
  void fence() {
    flush();
    Exec().fence();
  }

  const GapStrategy& strategy() const { return strategy_; }
  // The strategy's name as run.json records it: mesh, "mesh, 2 steps per launch", CSR, CSR split, tiled B^3+H.
  std::string strategy_name() const {
    if (strategy_.kernel == GapKernel::Tiled)
      return "tiled " + std::to_string(tiled_.tiling.brick) + "^3+" + std::to_string(tiled_.tiling.halo);
    return gap_kernel_name(strategy_.kernel);
  }
  // Tiled kernel: junctions served from the staged cube and from global memory (0, 0 for other kernels).
  std::pair<std::int64_t, std::int64_t> tiled_junctions() const {
    return {tiled_.in_junctions(), tiled_.out_junctions()};
  }
  bool step_pairs() const { return strategy_.kernel == GapKernel::MeshPairs; }
  // GPU backends: the fused CSR step's blocks per SM.
  int csr_step_min_blocks() const { return strategy_.csr_min_blocks; }

 private:
  // Steps enqueued on the execution space: all taken but a held-back one.
  std::int64_t steps_launched() const { return steps_done_ - (pending_ ? 1 : 0); }

  // The functor of the next step to launch (steps_launched() + 1).
  template <class Gap>
  IoStepFunctor<Exec, Real, Gap> step_functor(const Gap& gap, double i_app, bool with_per_cell) const {
    return make_step_functor<Exec, Real, Gap>(
        state_, g_cal_, with_per_cell ? Kokkos::View<const Real*, Mem>(i_app_cell_) : Kokkos::View<const Real*, Mem>(),
        gap, constants_, i_app, sink_, spike_threshold_, steps_launched());
  }

  template <class Gap>
  void launch(const Gap& gap, double i_app, bool with_per_cell) {
    const auto f = step_functor(gap, i_app, with_per_cell);
    if constexpr (!Backend::is_gpu) {
      if constexpr (Kernels::host_simd) {  // host: chunks of cells with SIMD compartment loops (io_step.hpp)
        const auto chunks = (cells_ + kHostChunk - 1) / kHostChunk;
        Kokkos::parallel_for("kbrain::olive::step", Kokkos::RangePolicy<Exec, HostChunkTag>(0, chunks), f);
        return;
      }
    }
    if constexpr (Backend::is_gpu && std::is_same_v<Gap, CsrGapJunctions<Real, Mem>>) {
      // the fused CSR step with launch bounds of its own (GapStrategy::csr_min_blocks)
      return launch_csr_step<Exec>(f, 0, cells_, strategy_.csr_min_blocks);
    }
    if constexpr (kHasChainedLaunch<Backend>) {
      if (strategy_.chained_launch && Backend::chained_launch::available()) {
        Backend::chained_launch::template parallel_for<GpuLaunch::step_threads, GpuLaunch::step_min_blocks>(
            f, 0, static_cast<int>(cells_));
        return;
      }
    }
    Kokkos::parallel_for("kbrain::olive::step", Kokkos::RangePolicy<Exec, StepLaunchBounds>(0, cells_), f);
  }

  void check_strategy() const {
    const GapChoiceInput in = choice_input(network_);
    if (!gap_strategy_rule(strategy_.kernel).compatible(in))
      throw std::invalid_argument("gap kernel '" + gap_kernel_name(strategy_.kernel) + "' cannot run this network" +
                                  (strategy_.kernel == GapKernel::Tiled ? " (it needs a lattice network: gaussian3d)" : ""));
    if (strategy_.csr_min_blocks != GpuLaunch::csr_step_min_blocks &&
        strategy_.csr_min_blocks != GpuLaunch::csr_step_min_blocks_dense_double)
      throw std::invalid_argument("csr step min blocks must be " + std::to_string(GpuLaunch::csr_step_min_blocks_dense_double) +
                                  " or " + std::to_string(GpuLaunch::csr_step_min_blocks) + ", got " +
                                  std::to_string(strategy_.csr_min_blocks));
  }

  // What the strategy needs besides the network: the tiled lists, the precomputed-current buffer.
  void build_gap_lists() {
    if (strategy_.kernel == GapKernel::Tiled) {
      BrickTiling t = default_tiling<Real>(cells_, network_.lattice_side, tiled_scratch_limit());
      if (strategy_.tile_brick > 0) {
        t.brick = strategy_.tile_brick;
        t.halo = strategy_.tile_halo;
      }
      using Tiled = typename Kernels::tiled;
      using Functor = TiledCurrentsFunctor<Exec, Real, typename Tiled::math, Tiled::branchy>;
      if (static_cast<std::int64_t>(Functor::scratch_bytes(t)) > tiled_scratch_limit())
        throw std::invalid_argument("tiled gap kernel: a cube of " + std::to_string(t.region()) +
                                    "^3 values does not fit the team scratch memory of " + std::string(Backend::name));
      tiled_ = build_tiled_gap<Exec, Real>(network_.csr, t);
    }
    if (strategy_.kernel == GapKernel::Split || strategy_.kernel == GapKernel::Tiled)
      i_gap_ = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "io_gap_current"), cells_);
  }

  // Team scratch for the staged cube: what the backend allows per team, at most LaunchTraits::tiled_scratch_max.
  static std::int64_t tiled_scratch_limit() {
    return std::min<std::int64_t>(LaunchTraitsOf<Backend>::tiled_scratch_max,
                                  Kokkos::TeamPolicy<Exec>(1, 1).scratch_size_max(0));
  }

  void upload_per_cell(const std::vector<double>& v) {
    if (static_cast<std::int64_t>(v.size()) != cells_)
      throw std::invalid_argument("per-cell current has " + std::to_string(v.size()) + " values for " +
                                  std::to_string(cells_) + " cells");
    if (i_app_cell_.extent(0) == 0) {
      i_app_cell_ = Kokkos::View<Real*, Mem>("i_app_cell", cells_);
      i_app_host_ = Kokkos::create_mirror_view(i_app_cell_);
    }
    for (std::int64_t i = 0; i < cells_; ++i) i_app_host_(i) = Real(v[i]);
    Kokkos::deep_copy(i_app_cell_, i_app_host_);
  }

  std::int64_t cells_;
  IoConstants<Real> constants_;
  DeviceGapNetwork<Real, Mem> network_;
  IoStateBuffers<Real, Mem> state_;
  Kokkos::View<const Real*, Mem> g_cal_;
  Kokkos::View<Real*, Mem> i_app_cell_;
  typename Kokkos::View<Real*, Mem>::HostMirror i_app_host_;
  SpikeSink<Mem> sink_;
  Real spike_threshold_ = Real(-20);
  std::int64_t spike_interval_ = 0;
  std::int64_t steps_done_ = 0;  // steps taken, including a held-back one
  bool pending_ = false;             // one step held back for a pair
  double pending_i_app_ = 0;
  // Step-pair kernel tiles (GpuLaunch::pair_tile_rows rows of 32 cells) with at most 64 registers per thread.
  using PairLaunchBounds = Kokkos::LaunchBounds<GpuLaunch::pair_threads, GpuLaunch::pair_min_blocks>;
  bool pending_check_ = false;
  GapStrategy strategy_;
  TiledGapJunctions<Real, Mem> tiled_;
  Kokkos::View<Real*, Mem> i_gap_;
};

}  // namespace kbrain::olive
