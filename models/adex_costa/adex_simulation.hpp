#pragma once
// Drives the dense plastic AdEx network on one backend: one step is the kernels of adex_kernels.hpp, launched in
// order without waiting for the device (StepStart, the synapse pass, then StepEnd and StepMean on host backends,
// StepEndTeams on GPUs). The host synchronises only to drain the spike ring (neuron crossings, kept only when spike
// files are written) and at the end.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"

#include "models/adex_costa/adex_exchange.hpp"
#include "models/adex_costa/adex_kernels.hpp"
#include "models/adex_costa/adex_plan.hpp"
#include "models/adex_costa/adex_reader.hpp"
#include "models/adex_costa/adex_reduce.hpp"
#include "models/adex_costa/adex_streaming.hpp"
#include "models/adex_costa/adex_synapse_groups.hpp"
#include "models/common/device_sampler.hpp"
#include "models/common/spike_flag_ring.hpp"
#include "models/runtime/memory_statement.hpp"
#include "models/runtime/run_request.hpp"
#include "models/runtime/run_result.hpp"

namespace kbrain::adex {

// The device memory a network needs, refused before anything is allocated when it exceeds what the device has free.
// On a GPU the message names the budget that would stream the synapses instead (`can_stream`).
// `largest_neurons`: the most network.neurons whose network fits `available` (the same rows per neuron).
void require_device_memory(std::int64_t needed, std::uint64_t available, const std::string& device,
                           std::int64_t n_pre, std::int64_t n_post, bool can_stream, std::int64_t largest_neurons);

template <class Backend, class Real>
class AdexSimulation {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using Reader = AdexReader<Real, Mem>;
  using Sampler = DeviceSampler<Exec, Real, Reader>;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;

  AdexSimulation(const AdexPlan& plan, const RunRequest& request, RunResult& res)
      : plan_(plan), p_(KernelParams<Real>::from(plan.params, plan.dt_ms)),
        pd_(KernelParams<double>::from(plan.params, plan.dt_ms)) {
    const auto [first_row, rows] = own_rows(plan);
    const std::int64_t chunk_rows = plan_memory(plan, rows);  // 0: in-core
    st_.allocate(plan.n_pre, first_row, rows, plan.n_post, plan.mxm, chunk_rows == 0);
    if (chunk_rows > 0) streamed_.emplace(st_, chunk_rows);
    if (plan.exchange) {  // the exchange's device and host buffers, allocated once
      winner_rows_ = Kokkos::View<long long*, Mem>("adex_winner_rows", plan.n_post);
      winner_currents_ = Kokkos::View<double*, Mem>("adex_winner_currents", plan.n_post);
      winner_rows_host_ = Kokkos::create_mirror(Kokkos::HostSpace(), winner_rows_);
      winner_currents_host_ = Kokkos::create_mirror(Kokkos::HostSpace(), winner_currents_);
      block_sum_host_ = Kokkos::create_mirror(Kokkos::HostSpace(), st_.block_sum);
      block_count_host_ = Kokkos::create_mirror(Kokkos::HostSpace(), st_.block_count);
    }
    initialise();
    if (request.write_spikes) {
      ring_ = SpikeFlagRing<Exec>(plan.n_post);
    }
    res.connections = plan.connections;
    const std::int64_t pass_blocks = streamed_ ? (streamed_->chunk_rows() + kRowsPerBlock - 1) / kRowsPerBlock : st_.blocks;
    res.strategy = fmt::format("dense, {} rows per block, a thread per (block, {})", kRowsPerBlock,
                               !Backend::is_gpu ? fmt::format("chunk of {} columns", kColumnsPerChunk)
                               : gpu_pass_is_wide(Exec(), plan.n_post, pass_blocks) ? std::string("2 columns")
                                                                                     : std::string("column"));
    if (st_.tile_shift >= 0) res.strategy += fmt::format(", synapse values in tiles of {} columns", 1 << st_.tile_shift);
    if (Backend::is_gpu && !rule().stored()) res.strategy += ", connections by rule (no flag read)";
    if (streamed_)
      res.strategy += fmt::format("; out-of-core: {} chunks of {} rows streamed, page-locked link measured at {:.1f} GB/s",
                                  streamed_->chunks(), streamed_->chunk_rows(), streamed_->link_bytes_per_s() / 1e9);
  }

  // This rank's synapse rows (all of them in one process) on the backend, in-core or streamed (plan_memory, which
  // refuses, exit 2, what cannot run); a streamed run keeps the rows' synapses in page-locked host memory.
  static MemoryStatement memory(const AdexPlan& plan, const RunRequest&) {
    using S = AdexState<Real, Mem>;
    const std::int64_t rows = own_rows(plan).second;
    std::int64_t chunk_rows = 0;
    try {
      chunk_rows = plan_memory(plan, rows);
    } catch (const ConfigError&) {
      throw;
    } catch (const std::runtime_error& e) {
      throw NotEnoughMemory(plan.config->source.string() + ": [network]: " + e.what());
    }
    MemoryStatement m;
    if (chunk_rows == 0) {
      m.device_bytes = double(S::bytes(rows, plan.n_post));
    } else {
      m.device_bytes = double(S::fixed_bytes(rows, plan.n_post) + 2 * chunk_rows * S::row_bytes(plan.n_post));
      m.host_bytes = double(rows) * double(S::row_bytes(plan.n_post));
    }
    return m;
  }

  std::int64_t steps_per_call() const { return 1; }
  std::int64_t steps_done() const { return steps_; }
  void fence() { Exec().fence(); }
  std::int64_t device_bytes() const {
    using S = AdexState<Real, Mem>;
    return streamed_ ? S::fixed_bytes(st_.rows, plan_.n_post) + 2 * streamed_->chunk_rows() * S::row_bytes(plan_.n_post)
                     : S::bytes(st_.rows, plan_.n_post);
  }
  Reader state() const { return Reader{st_, pd_, double(steps_ - 1) * plan_.dt_ms}; }

  void step() {
    const std::int64_t n = steps_;
    const double t = double(n) * plan_.dt_ms;
    const std::int64_t rows = plan_.n_pre, cols = plan_.n_post;  // every row's flags and traces; own rows' synapses
    const bool post_updates = plan_.post_events != PostEvents::None;
    if (plan_.pattern == Pattern::File) {  // the step's listed sources, read by the row flags
      const std::int64_t begin = plan_.spike_offsets[static_cast<std::size_t>(n)];
      const std::int64_t end = plan_.spike_offsets[static_cast<std::size_t>(n + 1)];
      Kokkos::parallel_for("kbrain::adex::list_flags", range(begin, end), ListFlags<Mem>{listed_, spike_sources_});
    }
    Kokkos::parallel_for("kbrain::adex::step_start", range(std::max(rows, cols)), step_start(n, t, post_updates));
    const SynapsePass<Real, Mem> pass{st_, pd_, st_.row_begin, st_.rows, post_updates};
    if (streamed_)
      streamed_->run(pass, rule(), n % 2 == 0);
    else if constexpr (Backend::is_gpu)
      launch_gpu_synapse_pass(Exec(), "kbrain::adex::synapses", pass, rule(), st_.blocks);
    else
      Kokkos::parallel_for("kbrain::adex::synapses", range(st_.blocks * st_.chunks), SynapsePassChunked<Real, Mem>{pass});
    if constexpr (Backend::is_gpu) {  // chunks, blocks and m̄ in one launch
      const StepEndTeams<Real, Mem, Exec> end{st_, !plan_.exchange, post_updates};
      Kokkos::parallel_for("kbrain::adex::step_end", kx::light_weight(end.policy()), end);
    } else {
      const StepEnd<Real, Mem> end{st_, !plan_.exchange, post_updates};
      Kokkos::parallel_for("kbrain::adex::step_end", range(end.size()), end);
      const StepMean<Real, Mem, Exec> mean{st_, !plan_.exchange, 1, StepMean<Real, Mem, Exec>::kPiece};
      Kokkos::parallel_for("kbrain::adex::step_mean", kx::light_weight(mean.policy()), mean);
    }
    if (plan_.exchange) exchange_step(post_updates);
    if (ring_.active()) ring_.capture(st_.crossed, n + 1);
    ++steps_;
  }

  bool spikes_due(std::int64_t, std::int64_t, bool) const { return ring_.full(); }
  SpikeEvents drain_spikes(bool) { return ring_.drain(); }

  // Counts for run.json (kbrain run reports each per second of simulate time too) and the compare columns.
  void finish(RunResult& res) {
    const double pre = total(st_.pre_events), post = total(st_.post_events);
    res.figures.emplace_back("pre_events", pre);
    res.figures.emplace_back("post_events", post);
    res.figures.emplace_back("neuron_spikes", total(st_.neuron_spikes));
    res.figures.emplace_back("synapse_steps", plan_.connections * double(steps_));
    if (streamed_) res.figures.emplace_back("streamed_bytes", streamed_->bytes_moved());  // per s: the link's rate
    res.bytes_moved = synapse_pass_bytes(pre, post);
  }

  // The bytes the synapse passes had to move, for compare's achieved GB/s (docs/models/adex-costa.md, "Storage and
  // bytes per synapse-step"): every slot's connection byte each step (not on GPUs under a rule, which the pass
  // computes), and R, u, U, A read and written for each
  // connected synapse that was touched. A synapse is touched when its row or its column fired; from the run's totals
  // (rows fired, columns fired) the larger of the two products is a lower bound of that count. Neuron arrays,
  // traces and block sums are left out.
  double synapse_pass_bytes(double pre_events, double post_events) const {
    const double slots = double(st_.rows) * double(plan_.n_post);
    if (slots <= 0 || steps_ <= 0) return 0;
    const double own_rows = double(st_.rows) / double(std::max<std::int64_t>(1, plan_.n_pre));
    const double connected = plan_.connections / (double(plan_.n_pre) * double(plan_.n_post));
    const double touched = std::max(pre_events * own_rows * double(plan_.n_post), post_events * double(st_.rows));
    const bool flags_read = !Backend::is_gpu || rule().stored();  // the GPU pass computes a rule instead
    return (flags_read ? double(steps_) * slots : 0.0) + touched * connected * 8.0 * double(sizeof(Real));
  }

  const AdexState<Real, Mem>& device_state() const { return st_; }

  // The sum of a per-neuron event count.
  static double total(const Kokkos::View<long long*, Mem>& counts) {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
    long long sum = 0;
    for (std::size_t k = 0; k < host.extent(0); ++k) sum += host(k);
    return double(sum);
  }

 private:
  // How the GPU pass learns the connections: the rule of all/half, or a connection file's stored flags.
  ConnectionRule rule() const { return {plan_.connectivity, plan_.parity}; }
  void initialise() {
    Kokkos::deep_copy(st_.V, Real(plan_.params.EL));
    Kokkos::deep_copy(st_.VT, Real(plan_.params.VTrest));
    Kokkos::View<Real*, Mem> profile_U("adex_profile_U", 100), profile_A("adex_profile_A", 100);
    auto hu = Kokkos::create_mirror_view(profile_U);
    auto ha = Kokkos::create_mirror_view(profile_A);
    for (int i = 0; i < 100; ++i) {
      hu(i) = Real(initial_U(plan_.params, i));
      ha(i) = Real(initial_A(plan_.params, i));
    }
    Kokkos::deep_copy(profile_U, hu);
    Kokkos::deep_copy(profile_A, ha);
    if (plan_.connectivity == Connectivity::File) {  // the file's rows are n_post flags each, the state's pitch slots
      auto host = Kokkos::create_mirror_view(st_.conn);
      for (std::int64_t r = 0; r < st_.rows; ++r)
        std::copy_n(plan_.conn.data() + (st_.row_begin + r) * plan_.n_post, plan_.n_post, host.data() + r * st_.pitch);
      Kokkos::deep_copy(st_.conn, host);
    }
    Kokkos::parallel_for("kbrain::adex::init", range(st_.rows * plan_.n_post),
                         SynapseInit<Real, Mem>{st_, profile_U, profile_A, plan_.connectivity, plan_.parity,
                                                 st_.row_begin});
    if (plan_.pattern == Pattern::File) {
      spike_sources_ = Kokkos::View<std::int32_t*, Mem>("adex_spike_sources", std::max<std::size_t>(1, plan_.spike_sources.size()));
      auto host = Kokkos::create_mirror_view(spike_sources_);
      for (std::size_t k = 0; k < plan_.spike_sources.size(); ++k) host(k) = plan_.spike_sources[k];
      Kokkos::deep_copy(spike_sources_, host);
      listed_ = Kokkos::View<int*, Mem>("adex_listed", plan_.n_pre);
    }
    Exec().fence();
  }

  // The first row and the rows of this rank (of the whole network in one process).
  static std::pair<std::int64_t, std::int64_t> own_rows(const AdexPlan& plan) {
    return plan.exchange ? rank_rows(plan.n_pre, kRowsPerBlock, plan.exchange->rank(), plan.exchange->ranks())
                         : std::pair<std::int64_t, std::int64_t>{0, plan.n_pre};
  }

  // In-core when the synapses fit the device (0), else the rows of a streamed chunk: on a GPU with a device budget,
  // two chunk buffers beside the rest of the state fill the budget. Refuses (before allocating) what cannot run.
  static std::int64_t plan_memory(const AdexPlan& plan, std::int64_t rows) {
    using S = AdexState<Real, Mem>;
    const auto hw = Backend::describe();
    const std::string device = std::string(Backend::name) + " (" + hw.device + ")";
    const std::int64_t in_core = S::bytes(rows, plan.n_post);
    const double budget = plan.device_budget;
    if (!Backend::is_gpu || budget <= 0 || double(in_core) <= budget) {
      const double free = double(hw.free_memory_bytes);
      const std::int64_t largest =
          free > 0 && double(in_core) > free
              ? largest_fitting(plan.n_post, free,
                                [&](std::int64_t n) {  // mxm: the rows are the neurons too
                                  const std::int64_t r = plan.mxm ? (rows * n + plan.n_pre - 1) / plan.n_pre : rows;
                                  return double(S::bytes(r, n));
                                })
              : plan.n_post;
      require_device_memory(in_core, hw.free_memory_bytes, device, rows, plan.n_post, Backend::is_gpu, largest);
      return 0;
    }
    const std::int64_t per_block = 2 * kRowsPerBlock * S::row_bytes(plan.n_post);
    const std::int64_t fixed = S::fixed_bytes(rows, plan.n_post);
    const std::int64_t usable = std::int64_t(std::min(budget, hw.free_memory_bytes ? double(hw.free_memory_bytes) : budget));
    if (usable < fixed + per_block)
      throw std::runtime_error(fmt::format("a device budget of {:.0f} bytes cannot hold the streamed {} x {} network: "
                                           "it needs at least {} bytes (two chunks of {} rows beside the neuron arrays)",
                                           budget, plan.n_pre, plan.n_post, fixed + per_block, kRowsPerBlock));
    return std::min((usable - fixed) / per_block * kRowsPerBlock, (rows + kRowsPerBlock - 1) / kRowsPerBlock * kRowsPerBlock);
  }

  // A multi-rank step's end: m̄ summed on the host over every rank's blocks in block order (the same additions as
  // StepMean in one process), the columns' winners reduced over the ranks.
  void exchange_step(bool post_updates) {
    Kokkos::parallel_for("kbrain::adex::local_winners", range(plan_.n_post),
                         LocalWinners<Real, Mem>{st_, winner_rows_, winner_currents_});
    Kokkos::deep_copy(block_sum_host_, st_.block_sum);
    Kokkos::deep_copy(block_count_host_, st_.block_count);
    plan_.exchange->gather_blocks(block_sum_host_.data(), block_count_host_.data(), st_.blocks, all_sums_, all_counts_);
    double sum = 0;
    long long count = 0;
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    const auto blocks = std::int64_t(all_sums_.size());
    ordered_sum(Kokkos::View<const double*, Kokkos::HostSpace, Unmanaged>(all_sums_.data(), blocks),
                Kokkos::View<const long long*, Kokkos::HostSpace, Unmanaged>(all_counts_.data(), blocks), 0, blocks,
                sum, count);
    Kokkos::deep_copy(st_.mbar, mean_of(sum, count));
    Kokkos::deep_copy(winner_rows_host_, winner_rows_);
    Kokkos::deep_copy(winner_currents_host_, winner_currents_);
    plan_.exchange->reduce_winners(winner_rows_host_.data(), winner_currents_host_.data(), plan_.n_post);
    Kokkos::deep_copy(winner_rows_, winner_rows_host_);
    Kokkos::deep_copy(winner_currents_, winner_currents_host_);
    Kokkos::parallel_for("kbrain::adex::apply_winners", range(plan_.n_post),
                         ApplyWinners<Real, Mem>{st_, winner_rows_, winner_currents_, post_updates});
  }

  // Light-weight launches: the functors hold the whole state (about 1 KiB), which Kokkos would otherwise pass
  // through constant memory, waiting before each launch for the previous one to finish (kx::light_weight).
  static auto range(std::int64_t count) { return range(0, count); }
  static auto range(std::int64_t begin, std::int64_t end) {
    return kx::light_weight(Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(begin, end));
  }

  static FlagSource pattern_source(Pattern p) {
    switch (p) {
      case Pattern::All: return FlagSource::All;
      case Pattern::Even: return FlagSource::Even;
      case Pattern::Model: return FlagSource::Crossed;
      case Pattern::PoissonGaussian: return FlagSource::Poisson;
      case Pattern::File: return FlagSource::List;
    }
    return FlagSource::None;
  }

  // Steps 1-4 of step n at time t (StepStart). Rows: the pattern's source; columns (nxm): their post events.
  StepStart<Real, Mem> step_start(std::int64_t n, double t, bool post_updates) const {
    const FlagSource rows = pattern_source(plan_.pattern);
    const FlagSource cols = plan_.post_events == PostEvents::Model     ? FlagSource::Crossed
                            : plan_.post_events == PostEvents::Imposed ? rows
                                                                       : FlagSource::None;
    const RowFlags<Mem> row_flag{rows, n, plan_.seed, plan_.position_at(n), plan_.radius, plan_.rate_on_hz,
                                 plan_.rate_off_hz, plan_.dt_ms * 1e-3, listed_};
    return {st_, NeuronStep<Real>{p_}, row_flag, ColumnFlags{cols}, !plan_.mxm,
            RowTraces{pd_, t}, ColumnTraces{pd_, t, post_updates}};
  }

  const AdexPlan& plan_;
  KernelParams<Real> p_;    // the neurons
  KernelParams<double> pd_;  // traces and synapse arithmetic
  AdexState<Real, Mem> st_;
  std::int64_t steps_ = 0;
  Kokkos::View<std::int32_t*, Mem> spike_sources_;
  Kokkos::View<int*, Mem> listed_;  // pattern file: the sources listed for the step being run
  std::optional<StreamedSynapses<Backend, Real>> streamed_;  // out-of-core runs
  // multi-rank: the columns' winners and the blocks' m̄ partial sums, on the device and on the host for the exchange
  Kokkos::View<long long*, Mem> winner_rows_;
  Kokkos::View<double*, Mem> winner_currents_;
  typename Kokkos::View<long long*, Mem>::HostMirror winner_rows_host_, block_count_host_;
  typename Kokkos::View<double*, Mem>::HostMirror winner_currents_host_, block_sum_host_;
  std::vector<double> all_sums_;
  std::vector<long long> all_counts_;
  SpikeFlagRing<Exec> ring_;  // neuron crossings for the spike files (only when they are written)
};

}  // namespace kbrain::adex
