#pragma once
// One rank's part of a distributed IO network (docs/mpi.md). The rank owns plan.owned cells (local ids: interior
// cells, then border cells) and keeps a halo of the remote dendritic voltages its cells read (local ids after the
// owned ones, one contiguous block of the V_dend row). Per step:
//   pack V_dend of the cells its neighbours need (device kernel) -> MPI_Ineighbor_alltoallv on a distributed-graph
//   communicator -> step the interior cells while the exchange is in flight -> wait -> unpack into the halo
//   (device kernel) -> step the border cells.
// The step functor and the CSR gap currents are the single-process ones, with each row's junctions in the global
// order, so every cell's update is bit-identical to the single-process run.
// Halo exchange (HaloExchange): with a backend that declares a peer_transport (CUDA: IPC) and every neighbour on
// this node, each rank copies its packed blocks straight into its neighbours' device receive buffers (double
// buffered by step parity) and MPI carries only one "copies done" token per neighbour and step ("peer"). Otherwise
// the buffers go through MPI: device buffers are handed to MPI directly when the MPI library reports CUDA support
// (or the backend runs in host memory); else they are staged through host buffers in the backend's
// staging_memory_space (page-locked for CUDA).
// Phase fences (set_phase_fences(true)): every phase is fenced and timed on its own (IoStepPhases); the results are
// the same bits, the step a little slower on asynchronous backends.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include "core/parallel/comm_plan.hpp"
#include "core/parallel/comm_plan_parallel.hpp"
#include "core/parallel/mpi_gather.hpp"
#include "core/parallel/mpi_plan.hpp"
#include "models/olive/gap/io_gap_junctions.hpp"
#include "core/parallel/halo_peer.hpp"
#include "models/olive/cell/io_parameters.hpp"
#include "models/olive/drivers/io_simulation.hpp"
#include "models/olive/cell/io_state.hpp"
#include "models/olive/cell/io_step.hpp"
#include "models/olive/distributed/io_step_phases.hpp"

namespace kbrain::olive {

// True when the MPI library says it can read and write CUDA device memory (Open MPI's MPIX_Query_cuda_support).
inline bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

template <class Real, class Mem>
struct ConvertConductance {  // out(k) = Real(in(k))
  Kokkos::View<const double*, Mem> in;
  Kokkos::View<Real*, Mem> out;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const { out(k) = Real(in(k)); }
};

template <class Real, class Mem>
struct HaloPackFunctor {  // buf(k) = V_dend of owned cell idx(k)
  StateView<Real, Mem> state;
  Kokkos::View<const std::int32_t*, Mem> idx;
  Kokkos::View<Real*, Mem> buf;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const { buf(k) = state(V_DEND, idx(k)); }
};

template <class Real, class Mem>
struct HaloUnpackFunctor {  // V_dend of halo entry k = buf(k)
  StateView<Real, Mem> state;
  Kokkos::View<const Real*, Mem> buf;
  std::int64_t owned = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const { state(V_DEND, owned + k) = buf(k); }
};

template <class Backend, class Real>
class IoMpiSimulation {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using StagingMem = typename Backend::staging_memory_space;
  static constexpr bool kHasTransport = PeerHaloExchange<Backend, Real>::kHasTransport;
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, StagingMem>::accessible,
                "Backend::staging_memory_space must be host memory (MPI reads and writes it)");
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;  // (step, GLOBAL cell)

  // plan: with its send side (mpi::exchange_requests) and its rows on the backend (make_rank_plan). g_cal_global:
  // per global cell. comm: the ranks of the run. Collective over comm (the exchange set-up).
  IoMpiSimulation(const IoParameters& params, const RankPlan<Mem>& rank_plan, const std::vector<double>& g_cal_global,
                  MPI_Comm comm, HaloExchange exchange = HaloExchange::Auto)
      : plan_(rank_plan.plan), constants_(IoConstants<Real>::make(params)), comm_(comm) {
    const auto& rows = rank_plan.rows;
    if (rows.cells != plan_.owned || static_cast<std::int64_t>(rows.offsets.extent(0)) != plan_.owned + 1)
      throw std::invalid_argument("IoMpiSimulation: the rows do not match the plan");
    if (plan_.owned + plan_.halo > INT32_MAX) throw std::invalid_argument("more than 2^31-1 local cells");
    const std::int64_t n = plan_.local_cells();
    state_.cur = StateView<Real, Mem>("io_mpi_state_a", NUM_VARS, n);
    state_.next = StateView<Real, Mem>("io_mpi_state_b", NUM_VARS, n);
    reset();
    // g_CaL in local order
    Kokkos::View<Real*, Mem> g("g_cal", plan_.owned);
    auto gh = Kokkos::create_mirror_view(g);
    for (std::int64_t l = 0; l < plan_.owned; ++l) gh(l) = Real(g_cal_global.at(plan_.global[l]));
    Kokkos::deep_copy(g, gh);
    g_cal_ = g;
    // CSR with local sources: the plan's rows, already on the backend (conductances converted on the backend)
    csr_.offsets = rows.offsets;
    csr_.sources = rows.sources;
    csr_.g_const = Real(plan_.constant_conductance);
    if (rows.g.extent(0) != 0) {
      if constexpr (std::is_same<Real, double>::value) {
        csr_.g = rows.g;
      } else {
        Kokkos::View<Real*, Mem> gj(Kokkos::view_alloc(Kokkos::WithoutInitializing, "io_mpi_g"), rows.g.extent(0));
        Kokkos::parallel_for("kbrain::olive::convert_g",
                             Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, rows.g.extent(0)),
                             ConvertConductance<Real, Mem>{rows.g, gj});
        csr_.g = gj;
      }
    }
    // exchange buffers and the neighbourhood
    send_idx_ = upload<std::int32_t>(plan_.send_local, "io_mpi_send_idx");
    send_buf_ = Kokkos::View<Real*, Mem>("io_mpi_send", plan_.send_local.size());
    for (auto c : plan_.send_counts) scounts_.push_back(static_cast<int>(c));
    for (auto d : plan_.send_displs) sdispls_.push_back(static_cast<int>(d));
    for (auto c : plan_.recv_counts) rcounts_.push_back(static_cast<int>(c));
    for (auto d : plan_.recv_displs) rdispls_.push_back(static_cast<int>(d));
    if (exchange != HaloExchange::Mpi && peer_.set_up(plan_, comm_, exchange == HaloExchange::Peer)) {
      mode_ = HaloExchangeMode::Peer;
      return;
    }
    recv_buf_ = Kokkos::View<Real*, Mem>("io_mpi_recv", plan_.halo);
    mode_ = !Backend::is_gpu || mpi_cuda_aware() ? HaloExchangeMode::InPlace : HaloExchangeMode::Staged;
    if (mode_ == HaloExchangeMode::Staged) {
      send_host_ = Kokkos::View<Real*, StagingMem>("io_mpi_send_host", plan_.send_local.size());
      recv_host_ = Kokkos::View<Real*, StagingMem>("io_mpi_recv_host", plan_.halo);
    }
    graph_ = mpi::make_halo_graph(plan_, comm_);
  }
  ~IoMpiSimulation() {
    if (graph_ != MPI_COMM_NULL) MPI_Comm_free(&graph_);
  }
  IoMpiSimulation(const IoMpiSimulation&) = delete;
  IoMpiSimulation& operator=(const IoMpiSimulation&) = delete;

  void reset() {
    fill_initial_state<Exec>(state_.cur);
    fill_initial_state<Exec>(state_.next);
    steps_done_ = 0;
  }

  void enable_spikes(double threshold) {
    spike_threshold_ = Real(threshold);
    const std::int64_t cells = std::max<std::int64_t>(1, plan_.owned);
    const std::int64_t cap = std::max<std::int64_t>(2 * cells, std::min<std::int64_t>(64 * cells, 16 << 20));
    long long interval = 2 * (cap / cells), common = interval;
    // every rank drains at the same steps (drains gather to rank 0): the smallest interval of all ranks
    mpi::check(MPI_Allreduce(&interval, &common, 1, MPI_LONG_LONG, MPI_MIN, comm_), "MPI_Allreduce");
    spike_interval_ = common;
    sink_.count = Kokkos::View<int, Mem>("spike_count");
    sink_.events = Kokkos::View<int*, Mem>("spike_events", 2 * cap);
  }
  // The same on every rank when every rank calls enable_spikes (ranks drain together: a collective point).
  std::int64_t spike_drain_interval() const { return spike_interval_; }

  // Phase fences on: each phase is fenced and timed on its own (phases()); off (default): the overlapped step.
  void set_phase_fences(bool on) { phases_.fenced = on; }
  bool phase_fences() const { return phases_.fenced; }

  // One step. per_cell_global (if given): per GLOBAL cell.
  void step(double i_app, const std::vector<double>* per_cell_global = nullptr) {
    if (per_cell_global) upload_per_cell(*per_cell_global);
    const auto f = make_step_functor<Exec, Real>(
        state_, g_cal_, per_cell_global ? Kokkos::View<const Real*, Mem>(i_app_cell_) : Kokkos::View<const Real*, Mem>(),
        csr_, constants_, i_app, sink_, spike_threshold_, steps_done_);
    const bool fenced = phases_.fenced;
    if (fenced) Exec().fence();  // kernels launched between steps (sampler, uploads) are not this step's phases
    const double t_step = fenced ? MPI_Wtime() : 0.0;

    const bool exchange = !scounts_.empty() || !rcounts_.empty();
    const bool peer = mode_ == HaloExchangeMode::Peer;
    MPI_Request req = MPI_REQUEST_NULL;
    if (exchange) {
      const double t0 = MPI_Wtime();
      if (!plan_.send_local.empty())
        Kokkos::parallel_for("kbrain::olive::halo_pack", Kokkos::RangePolicy<Exec>(0, send_idx_.extent(0)),
                             HaloPackFunctor<Real, Mem>{state_.cur, send_idx_, send_buf_});
      if (peer) {
        peer_.post(send_buf_.data(), steps_done_);  // no MPI request: the tokens follow the interior launch
        if (fenced) peer_.wait_copies();
      } else {
        Real* sbuf = send_buf_.data();
        Real* rbuf = recv_buf_.data();
        if (mode_ == HaloExchangeMode::Staged) {
          Kokkos::deep_copy(send_host_, send_buf_);  // fences
          sbuf = send_host_.data();
          rbuf = recv_host_.data();
        } else {
          Exec().fence();  // the packed buffer must be complete before MPI reads it
        }
        mpi::check(MPI_Ineighbor_alltoallv(sbuf, scounts_.data(), sdispls_.data(), mpi_type(), rbuf,
                                           rcounts_.data(), rdispls_.data(), mpi_type(), graph_, &req),
                   "MPI_Ineighbor_alltoallv");
      }
      phases_.pack_s += MPI_Wtime() - t0;
    }
    const double t_interior = fenced ? MPI_Wtime() : 0.0;
    launch(f, 0, plan_.interior);  // interior cells read no halo value: overlap with the exchange
    if (fenced) {
      Exec().fence();
      phases_.interior_s += MPI_Wtime() - t_interior;
    }
    if (exchange) {
      const double t0 = MPI_Wtime();
      if (peer) {
        if (!fenced) peer_.wait_copies();
        peer_.exchange_tokens(steps_done_);
      } else {
        mpi::check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
      }
      const double t1 = MPI_Wtime();
      phases_.wait_s += t1 - t0;
      if (mode_ == HaloExchangeMode::Staged) Kokkos::deep_copy(recv_buf_, recv_host_);
      if (plan_.halo > 0)
        Kokkos::parallel_for("kbrain::olive::halo_unpack", Kokkos::RangePolicy<Exec>(0, plan_.halo),
                             HaloUnpackFunctor<Real, Mem>{state_.cur, peer ? peer_.received(steps_done_) : recv_buf_,
                                                          plan_.owned});
      if (fenced) {
        Exec().fence();
        phases_.unpack_s += MPI_Wtime() - t1;
      }
    }
    const double t_border = fenced ? MPI_Wtime() : 0.0;
    launch(f, plan_.interior, plan_.owned);
    if (fenced) {
      Exec().fence();
      const double t_end = MPI_Wtime();
      phases_.border_s += t_end - t_border;
      phases_.step_s += t_end - t_step;
    }
    state_.swap();
    ++steps_done_;
    if (sink_.events.extent(0) != 0 && steps_done_ % spike_interval_ == 0) pending_check_ = true;
  }

  // This rank's spikes since the last drain, (step, GLOBAL cell), sorted.
  SpikeEvents drain_spikes() {
    pending_check_ = false;
    return drain_spike_sink(sink_, [this](int local) { return plan_.global[local]; });
  }
  bool spikes_due() const { return pending_check_; }

  // One variable of the owned cells, in local order (see plan().global).
  std::vector<double> owned_variable(int var) const {
    auto row = Kokkos::subview(state_.cur, var, std::make_pair(std::int64_t(0), plan_.owned));
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row);
    return std::vector<double>(h.data(), h.data() + plan_.owned);
  }

  // One variable of every cell in global order, on rank `root` (empty elsewhere). Collective.
  std::vector<double> gather_variable(int var, int root = 0) const {
    const std::vector<std::int64_t> ids(plan_.global.begin(), plan_.global.begin() + plan_.owned);
    const auto vals = mpi::gather(owned_variable(var), comm_, root).values;
    const auto gids = mpi::gather(ids, comm_, root).values;
    std::vector<double> out(vals.size());
    for (std::size_t k = 0; k < vals.size(); ++k) out[gids[k]] = vals[k];
    return out;
  }

  const StateView<Real, Mem>& state() const { return state_.cur; }
  const CommPlan& plan() const { return plan_; }
  std::int64_t steps_done() const { return steps_done_; }
  HaloExchangeMode exchange_mode() const { return mode_; }
  double exchange_wait_s() const { return phases_.wait_s; }  // time blocked in MPI_Wait
  double pack_post_s() const { return phases_.pack_s; }       // pack (+ staging copy) and posting the exchange
  const IoStepPhases& phases() const { return phases_; }
  std::int64_t device_bytes() const {
    const std::int64_t recv = (mode_ == HaloExchangeMode::Peer ? 2 : 1) * plan_.halo;
    return static_cast<std::int64_t>((2 * NUM_VARS * plan_.local_cells() + plan_.owned + recv +
                                      plan_.send_local.size() + csr_.g.extent(0)) * sizeof(Real) +
                                     csr_.offsets.extent(0) * 8 + (csr_.sources.extent(0) + plan_.send_local.size()) * 4);
  }
  void fence() const { Exec().fence(); }

 private:
  static MPI_Datatype mpi_type() { return std::is_same<Real, float>::value ? MPI_FLOAT : MPI_DOUBLE; }

  template <class T>
  static Kokkos::View<const T*, Mem> upload(const std::vector<T>& v, const char* label) {
    Kokkos::View<T*, Mem> d(std::string(label), v.size());
    Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size()));
    return d;
  }

  template <class F>
  void launch(F f, std::int64_t begin, std::int64_t end) {
    if (end <= begin) return;
    if constexpr (!Backend::is_gpu) {
      f.cell_begin = static_cast<int>(begin);
      f.cell_end = static_cast<int>(end);
      const auto chunks = (end - begin + kHostChunk - 1) / kHostChunk;
      Kokkos::parallel_for("kbrain::olive::step", Kokkos::RangePolicy<Exec, HostChunkTag>(0, chunks), f);
    } else {
      // the fused CSR step's launch bounds for this rank's rows (csr_step_min_blocks, io_step_launch.hpp)
      const double junctions_per_cell = double(csr_.sources.extent(0)) / double(std::max<std::int64_t>(1, plan_.owned));
      launch_csr_step<Exec>(f, begin, end, csr_step_min_blocks(sizeof(Real) == 8, junctions_per_cell));
    }
  }

  void upload_per_cell(const std::vector<double>& v) {
    if (i_app_cell_.extent(0) == 0) {
      i_app_cell_ = Kokkos::View<Real*, Mem>("i_app_cell", plan_.owned);
      i_app_host_ = Kokkos::create_mirror_view(i_app_cell_);
    }
    for (std::int64_t l = 0; l < plan_.owned; ++l) i_app_host_(l) = Real(v.at(plan_.global[l]));
    Kokkos::deep_copy(i_app_cell_, i_app_host_);
  }

  CommPlan plan_;
  IoConstants<Real> constants_;
  MPI_Comm comm_;
  MPI_Comm graph_ = MPI_COMM_NULL;
  IoStateBuffers<Real, Mem> state_;
  Kokkos::View<const Real*, Mem> g_cal_;
  CsrGapJunctions<Real, Mem> csr_;
  Kokkos::View<const std::int32_t*, Mem> send_idx_;
  Kokkos::View<Real*, Mem> send_buf_, recv_buf_;
  Kokkos::View<Real*, StagingMem> send_host_, recv_host_;
  HaloExchangeMode mode_ = HaloExchangeMode::InPlace;
  PeerHaloExchange<Backend, Real> peer_;  // set up in Peer mode only
  std::vector<int> scounts_, sdispls_, rcounts_, rdispls_;
  Kokkos::View<Real*, Mem> i_app_cell_;
  typename Kokkos::View<Real*, Mem>::HostMirror i_app_host_;
  SpikeSink<Mem> sink_;
  Real spike_threshold_ = Real(-20);
  std::int64_t spike_interval_ = 0, steps_done_ = 0;
  bool pending_check_ = false;
  IoStepPhases phases_;
};

}  // namespace kbrain::olive
