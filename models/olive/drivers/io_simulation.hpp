#pragma once
// Drives an IO network on one backend: owns the two state buffers, the per-cell g_CaL, the device network,
// the spike buffer and a sample buffer; enqueues one kernel per step, or per two steps on a mesh in float on GPU
// backends (set_step_pairs), with no per-step host synchronisation.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "core/network/gap_network.hpp"
#include "models/olive/gap/io_gap_split.hpp"
#include "models/olive/gap/io_gap_tiled.hpp"
#include "models/olive/launch/io_mesh_pair.hpp"
#include "models/olive/gap/io_network_device.hpp"
#include "models/olive/cell/io_parameters.hpp"
#include "models/olive/cell/io_state.hpp"
#include "models/olive/cell/io_step.hpp"
#include "models/olive/launch/io_step_launch.hpp"

namespace kbrain::olive {

template <class Backend, class Real>
class IoSimulation {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;

  IoSimulation(const IoParameters& params, const GapNetwork& net, const std::vector<double>& g_cal,
               bool use_mesh_kernel = true)
      : cells_(net.cells), constants_(IoConstants<Real>::make(params)) {
    check_g_cal(g_cal);
    network_ = DeviceGapNetwork<Real, Mem>::upload(net, use_mesh_kernel);
    init_state(g_cal);
  }

  // A network that is already in the execution space's memory (e.g. generated there: no host round trip).
  IoSimulation(const IoParameters& params, DeviceGapNetwork<Real, Mem> network, const std::vector<double>& g_cal)
      : cells_(network.cells), constants_(IoConstants<Real>::make(params)), network_(std::move(network)) {
    check_g_cal(g_cal);
    init_state(g_cal);
  }

 private:
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
  // With step pairs on, a step without per-cell current may be held back and launched together with the next one
  // (io_mesh_pair.hpp); everything that reads the state (state(), variable(), drain_spikes(), fence()) launches a
  // held step first, so callers see exactly the one-step results.
  void step(double i_app, const std::vector<double>* per_cell = nullptr) {
    if (steps_done_ >= INT32_MAX) throw std::runtime_error("more than 2^31-1 steps in one run");
    prepare();
    if (pairs_ && per_cell == nullptr) {
      if (pending_) {
        launch_mesh_pair<Exec, Real, Mem, PairLaunchBounds>(step_functor(network_.grid, pending_i_app_, false),
                                                            i_app, kPairTileRows);
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
    switch (kernel_) {
      case GapKernel::Mesh: launch(network_.grid, i_app, with_per_cell); break;
      case GapKernel::Tiled:
        compute_tiled_gap_currents<Exec, Real>(tiled_, state_.cur, i_gap_, Backend::is_gpu, tiled_choice_);
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

  // Which gap-junction kernel the steps use. Mesh: neighbours from the index (mesh2d). Fused: each cell sums its
  // CSR row inside the step kernel. Split: a vector-lane group per cell sums the row in a kernel of its own
  // (io_gap_split.hpp). Tiled: lattice networks, V_dend of a brick's surroundings staged in team scratch
  // (io_gap_tiled.hpp). Fixed by prepare() (the first step calls it); set_gap_* afterwards throws.
  enum class GapKernel { Mesh, Fused, Split, Tiled };

  // Split: -1 = on GPU backends, in float, when the mean number of junctions per cell is at least kSplitMinDegree
  // (default), 0 = never, 1 = always (any backend; on the host it runs one cell per team, for tests). The default
  // follows the H200 measurements in docs/performance.md: split is 1.3-1.45x faster in float at 1000 junctions per
  // cell, slower at 10 and 100, and no faster in double.
  static constexpr double kSplitMinDegree = 500;
  void set_gap_split(int mode) {
    require_unprepared();
    gap_split_mode_ = mode;
  }

  // Tiled (lattice networks only): -1 = on GPU backends when the mean number of junctions per cell is at least
  // kTiledMinDegree (default), 0 = never, 1 = always (throws without a lattice). brick, halo: the cut (0 = the
  // largest cube that fits the team scratch memory, default_tiling). bank_order: BrickTiling::bank_order (off: within
  // noise on an H200). The default follows the H200 measurements in
  // docs/performance.md: at 1000 junctions per cell tiled is 1.7x faster than split in float and 1.3x faster than
  // fused in double; at 100 it is no faster in float and slower in double.
  static constexpr double kTiledMinDegree = 500;
  static bool tiles_by_default(bool lattice, double junctions, double cells) {
    return Backend::is_gpu && lattice && junctions >= kTiledMinDegree * cells;
  }
  void set_gap_tiling(int mode, int brick = 0, int halo = 0, bool bank_order = false) {
    require_unprepared();
    if (mode == 1 && network_.lattice_side <= 0)
      throw std::invalid_argument("the tiled gap kernel needs a lattice network (gaussian3d)");
    gap_tiled_mode_ = mode;
    tile_brick_ = brick;
    tile_halo_ = halo;
    tile_bank_order_ = bank_order;
  }

  // How the tiled kernel evaluates its junctions (TiledKernelChoice, io_gap_tiled.hpp; default_tiled_choice). May
  // be changed between steps.
  void set_tiled_kernel(TiledKernelChoice choice) {
    flush();
    tiled_choice_ = choice;
  }

  // Chooses the gap kernel and builds what it needs (the tiled lists). Idempotent.
  void prepare() {
    if (prepared_) return;
    kernel_ = choose_kernel();
    if (kernel_ == GapKernel::Tiled) {
      BrickTiling t = default_tiling<Real>(cells_, network_.lattice_side, tiled_scratch_limit());
      if (tile_brick_ > 0) {
        t.brick = tile_brick_;
        t.halo = tile_halo_;
      }
      t.bank_order = tile_bank_order_;
      if (static_cast<std::int64_t>(TiledCurrentsFunctor<Exec, Real>::scratch_bytes(t)) > tiled_scratch_limit())
        throw std::invalid_argument("tiled gap kernel: a cube of " + std::to_string(t.region()) +
                                    "^3 values does not fit the team scratch memory of " + std::string(Backend::name));
      tiled_ = build_tiled_gap<Exec, Real>(network_.csr, t);
    }
    if ((kernel_ == GapKernel::Split || kernel_ == GapKernel::Tiled) && i_gap_.extent(0) == 0)
      i_gap_ = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "io_gap_current"), cells_);
    pairs_ = kernel_ == GapKernel::Mesh &&
             (step_pairs_mode_ == 1 || (step_pairs_mode_ == -1 && Backend::is_gpu && sizeof(Real) == 4));
    prepared_ = true;
  }
  GapKernel gap_kernel() {
    prepare();
    return kernel_;
  }
  std::string gap_kernel_name() {
    switch (gap_kernel()) {
      case GapKernel::Mesh: return pairs_ ? "mesh, 2 steps per launch" : "mesh";
      case GapKernel::Split: return "CSR split";
      case GapKernel::Tiled:
        return "tiled " + std::to_string(tiled_.tiling.brick) + "^3+" + std::to_string(tiled_.tiling.halo);
      default: return "CSR";
    }
  }
  // Tiled kernel: junctions served from the staged cube and from global memory (0, 0 for other kernels).
  std::pair<std::int64_t, std::int64_t> tiled_junctions() const {
    return {tiled_.in_junctions(), tiled_.out_junctions()};
  }

  // Step pairs on the mesh kernel (io_mesh_pair.hpp: two steps per launch, the same results bit for bit): -1 = on
  // GPU backends in float (default), 0 = never, 1 = always (any backend and precision; tests). They stay off for
  // other gap kernels. The default follows the H200 measurements in docs/performance.md: 1M-cell mesh float 6 %
  // faster, double 7-15 % slower (FP64 latency, not memory, limits the double step).
  void set_step_pairs(int mode) {
    require_unprepared();
    step_pairs_mode_ = mode;
  }
  bool step_pairs() {
    prepare();
    return pairs_;
  }

  // One-step-per-launch mesh and precomputed-current step kernels through the backend's chained launch where it
  // declares one (CUDA on Hopper and later: programmatic dependent launch, bit-identical results). Default: on in
  // double, where the 1M-cell mesh step measured 0.6-0.8 % faster on an H200, off in float, where it measured
  // +0.3 % to -3.7 % (docs/performance.md). Off: Kokkos::parallel_for. Other backends: no effect.
  void set_chained_launch(bool on) { chained_launch_ = on; }

  // GPU backends: launch bounds of the fused CSR step (one thread per cell sums its row): at least `min_blocks`
  // blocks per SM (2, 3, 4 or 6; the register cap follows), or 0 = the default, which follows the precision and
  // the mean junctions per cell (csr_step_min_blocks in io_step_launch.hpp: 2 in double from 50, else 4).
  void set_csr_step_min_blocks(int min_blocks) {
    if (min_blocks != 0 && min_blocks != 2 && min_blocks != 3 && min_blocks != 4 && min_blocks != 6)
      throw std::invalid_argument("csr step min blocks must be 0, 2, 3, 4 or 6, got " + std::to_string(min_blocks));
    csr_min_blocks_ = min_blocks;
  }
  // The fused CSR step's blocks per SM as launched: the set value, else the default for this network.
  int csr_step_min_blocks() const {
    if (csr_min_blocks_ != 0) return csr_min_blocks_;
    const double junctions = network_.mesh ? 0.0 : double(network_.csr.sources.extent(0));
    return olive::csr_step_min_blocks(sizeof(Real) == 8, cells_ > 0 ? junctions / double(cells_) : 0.0);
  }

  // Host backends: SIMD chunked kernel (default) or the plain one-cell-per-index kernel with libm exp (the
  // "straightforward scalar" baseline the benchmarks compare against). No effect on GPU backends.
  void set_host_simd(bool on) { host_simd_ = on; }

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
      if (host_simd_) {  // host: chunks of cells with SIMD compartment loops (io_step.hpp)
        const auto chunks = (cells_ + kHostChunk - 1) / kHostChunk;
        Kokkos::parallel_for("kbrain::olive::step", Kokkos::RangePolicy<Exec, HostChunkTag>(0, chunks), f);
        return;
      }
    }
    if constexpr (Backend::is_gpu && std::is_same_v<Gap, CsrGapJunctions<Real, Mem>>) {
      // the fused CSR step with launch bounds of its own (set_csr_step_min_blocks)
      return launch_csr_step<Exec>(f, 0, cells_, csr_step_min_blocks());
    }
    if constexpr (kHasChainedLaunch<Backend> && KBRAIN_IO_MAX_THREADS > 0 && KBRAIN_IO_MIN_BLOCKS > 0) {
      if (chained_launch_ && Backend::chained_launch::available()) {
        Backend::chained_launch::template parallel_for<KBRAIN_IO_MAX_THREADS, KBRAIN_IO_MIN_BLOCKS>(
            f, 0, static_cast<int>(cells_));
        return;
      }
    }
    Kokkos::parallel_for("kbrain::olive::step", Kokkos::RangePolicy<Exec, StepLaunchBounds>(0, cells_), f);
  }

  GapKernel choose_kernel() const {
    if (network_.mesh) return GapKernel::Mesh;
    if (cells_ == 0) return GapKernel::Fused;
    const double junctions = double(network_.csr.sources.extent(0));
    if (network_.lattice_side > 0 && gap_tiled_mode_ != 0) {
      if (gap_tiled_mode_ == 1) return GapKernel::Tiled;
      if (gap_split_mode_ != 1 && tiles_by_default(true, junctions, double(cells_))) return GapKernel::Tiled;
    }
    if (gap_split_mode_ >= 0) return gap_split_mode_ == 1 ? GapKernel::Split : GapKernel::Fused;
    return Backend::is_gpu && sizeof(Real) == 4 && junctions >= kSplitMinDegree * double(cells_) ? GapKernel::Split
                                                                                                : GapKernel::Fused;
  }

  // Team scratch for the staged cube: what the backend allows per team, at most 40 KiB (Kokkos 3.4's CUDA limit).
  static std::int64_t tiled_scratch_limit() {
    return std::min<std::int64_t>(40 * 1024, Kokkos::TeamPolicy<Exec>(1, 1).scratch_size_max(0));
  }

  void require_unprepared() const {
    if (prepared_) throw std::logic_error("the gap kernel is chosen at the first step; set it before");
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
  int step_pairs_mode_ = -1;
  bool pairs_ = false;
  // Step-pair kernel tiles: 8 rows of 32 cells, at most 64 registers (1M-cell mesh float on an H200: 0.0387
  // ns/cell-step against 0.0398 with the compiler's 48 registers and 0.0410 for one-step launches).
  static constexpr int kPairTileRows = 8;
  using PairLaunchBounds = Kokkos::LaunchBounds<256, 4>;
  bool pending_check_ = false;
  bool host_simd_ = true;
  bool chained_launch_ = sizeof(Real) == 8;
  int csr_min_blocks_ = 0;
  int gap_split_mode_ = -1, gap_tiled_mode_ = -1, tile_brick_ = 0, tile_halo_ = 0;
  bool tile_bank_order_ = false;
  TiledKernelChoice tiled_choice_ = default_tiled_choice<Real>();
  bool prepared_ = false;
  GapKernel kernel_ = GapKernel::Fused;
  TiledGapJunctions<Real, Mem> tiled_;
  Kokkos::View<Real*, Mem> i_gap_;
};

}  // namespace kbrain::olive
