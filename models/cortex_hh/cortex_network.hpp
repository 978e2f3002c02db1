#pragma once
// Drives the Wang 2012 cortical HH network on one backend. One network step (network_dt; = dt for the basic
// method), all launched without waiting for the device:
//   1. TPM only: partition the neurons into active / inactive by v (scan) -> `order`;
//   2. the neuron kernel (cortex_step.hpp): arrivals, S sub-steps in registers, first spike sub-step per neuron;
//      on GPUs it appends each spike to the step's list and the device log itself;
//   3. CPUs: parallel_scan compacts the spike flags (ascending index) and appends the spikes to the device log;
//      the step's counts stay in device counters (cortex_exchange.hpp);
//   4. a fixed league of teams (GPUs: warps) takes the step's spikes in turn and adds their synapses' fixed-point
//      weights into the targets' circular event tables (ring slot step + 1 + delay, delays in network steps, EAI:
//      nearest network step to the exact arrival; integer sums: identical on every backend); one thread of it
//      moves the counters and the step clock on.
// Kernels of one index per thread go through the backend's chained launch where it has one.
// The step index is read on the device (spiking/step_clock.hpp), so every step issues the same launches: where the
// backend declares a step graph (CUDA) they are recorded and replayed in batches (backends/step_replay.hpp).
// The host waits only to drain the spike log, and before the log could overflow (it counts the steps that are safe
// even if every neuron spiked in each), as the point driver does (models/point/point_network.hpp).
// Same interface as point::PointNetworkSimulation, with step() advancing substeps() sub-steps of dt.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "backends/range_launch.hpp"
#include "backends/step_replay.hpp"
#include "core/kokkos_compat.hpp"
#include "models/cortex_hh/cortex_exchange.hpp"
#include "models/cortex_hh/cortex_step.hpp"
#include "models/point/point_setup.hpp"
#include "models/point/point_state.hpp"
#include "spiking/generated_synapses.hpp"
#include "spiking/spike_log.hpp"
#include "spiking/step_bytes.hpp"
#include "spiking/step_clock.hpp"

namespace kbrain::cortex {

// Replay: record the step once and replay it where the backend declares a step graph (tests compare false).
template <class Backend, class Real, bool Replay = true>
class CortexHhSimulation {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;
  // GPUs: spikes appended by the neuron kernel (spiking::SpikeSink); CPUs: a scan over the spike flags.
  static constexpr bool kAppend = Backend::is_gpu;

  explicit CortexHhSimulation(const point::PointSetup& setup)
      : params_(setup.params), neurons_(setup.network.neurons), seed_(setup.seed) {
    if (params_.model != point::NeuronModel::CortexHh) throw std::invalid_argument("not a cortex_hh setup");
    if (setup.network.poisson_sources > 0) throw std::invalid_argument("cortex_hh: Poisson sources are not supported");
    if (neurons_ > INT32_MAX) throw std::invalid_argument("more than 2^31-1 neurons");
    state_.allocate(params_, neurons_);
    const std::vector<double>& v0 = setup.initial[point::V];
    point::upload(state_.v, v0);
    // gates start at their steady state for the initial v; synapses at 0
    std::vector<double> m(neurons_), h(neurons_), n(neurons_), p(neurons_);
    for (std::int64_t i = 0; i < neurons_; ++i) {
      double g[kGateFunctions];
      gating_functions<double>(params_.gating, params_.v_t, v0[i], g);
      m[i] = g[0]; h[i] = g[2]; n[i] = g[4]; p[i] = g[6];
    }
    point::upload(state_.m, m);
    point::upload(state_.h, h);
    point::upload(state_.n, n);
    point::upload(state_.p, p);
    point::upload(state_.i_ext, setup.i_ext);
    point::upload(state_.noise_sd, setup.noise_sd);
    n_exc_ = setup.network.excitatory;
    {
      auto made = spiking::make_synapses<Exec>(setup.network, setup.delays, false,
                                               setup.given_network ? &*setup.given_network : nullptr);
      synapses_ = made.csr;
      offsets_ = std::move(made.offsets);
      generation_ = made.times;
    }
    slots_ = synapses_.max_delay + 2;  // + 1: EAI's late half (CortexDelivery)
    ring_ = Kokkos::View<long long**, Kokkos::LayoutRight, Mem>("cortex_ring", slots_ * 2, neurons_);
    flags_ = Kokkos::View<int*, Mem>("cortex_spike_flags", neurons_);
    list_ = Kokkos::View<int*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "cortex_spike_list"),
                                    std::max<std::int64_t>(1, neurons_));
    double inv_scale[2] = {1.0 / synapses_.scale[0], 1.0 / synapses_.scale[1]};
    c_ = CortexConstants<Real>::make(params_, static_cast<int>(n_exc_), inv_scale);
    if (params_.lut) {
      const std::vector<double> t = build_gate_table(params_);
      Kokkos::View<Real*, Mem> lut("cortex_gate_table", t.size());
      point::upload(lut, t);
      lut_ = lut;
    }
    if (params_.tpm) order_ = Kokkos::View<int*, Mem>("cortex_tpm_order", neurons_);
    clock_ = spiking::make_step_clock<Mem>(0);
    // GPUs: about one warp per 8 neurons takes the step's spikes in turn (as the point driver); CPUs: a team per
    // thread.
    deliver_warps_ = static_cast<int>(std::clamp<std::int64_t>(neurons_ / 8, 64, 8192));
    deliver_league_ = std::max(1, kx::concurrency<Exec>());
  }

  // Keep every neuron spike in a device log of `capacity` events (default: room for 64 network steps of every
  // neuron spiking on a GPU, 2 on the CPU, within [2^20 (GPU) or 2^16, 2^26]); drain_spikes() empties it. The host
  // moves it into its own buffer before it could overflow. Before the first step.
  void enable_spike_log(std::int64_t capacity = 0) {
    if (network_steps_ > 0) throw std::logic_error("enable_spike_log after the first step");
    spikes_.enable(capacity, Backend::is_gpu);
  }

  int substeps() const { return static_cast<int>(params_.substeps()); }

  // Advances one network step (substeps() sub-steps), asynchronously on a GPU.
  void step() {
    const std::int64_t S = substeps();
    if ((network_steps_ + 1) * S >= INT32_MAX) throw std::runtime_error("more than 2^31-2 sub-steps in one run");
    steps_.step([this](const Exec& exec) { launch_step(exec); });
    ++network_steps_;
    spikes_.after_step([this] { fence(); });
  }

  // Whether the steps are replayed from a recording (a backend with a step graph, after the first step).
  bool replays_steps() const { return steps_.replays(); }

  // Neuron spikes so far (waits for the device).
  std::int64_t total_spikes() {
    return spikes_.total([this] { fence(); });
  }

  // Neuron spikes since the last drain as (sub-steps done, neuron), sorted.
  SpikeEvents drain_spikes() { return spikes_.drain([this] { fence(); }); }

  std::vector<double> variable(int var) {
    steps_.launch_queued();
    return point::download(state_.view(var));
  }
  // The state after every step so far (launches the queued steps first).
  const point::PointState<Real, Mem>& state() {
    steps_.launch_queued();
    return state_;
  }
  const point::PointParameters& params() const { return params_; }
  std::int64_t neurons() const { return neurons_; }
  std::int64_t synapse_count() const { return synapses_.count; }
  // Outgoing synapses of presynaptic p: offsets()[p + 1] - offsets()[p].
  const std::vector<std::int64_t>& offsets() const { return offsets_; }
  const spiking::GenerationTimes& generation() const { return generation_; }
  std::int64_t steps_done() const { return network_steps_ * substeps(); }
  // The bytes the steps had to move, for compare's achieved GB/s (spiking/step_bytes.hpp: a lower bound). The state
  // is read and written once per network step (its sub-steps run in registers), with both receptors' ring slots.
  double bytes_moved(double synaptic_events) const {
    return double(network_steps_) * double(neurons_) *
               spiking::neuron_step_bytes(state_.live_variables(), 2, sizeof(Real)) +
           synaptic_events * spiking::kSynapticEventBytes;
  }
  std::int64_t device_bytes() const {
    return synapses_.device_bytes() + static_cast<std::int64_t>(ring_.span() * sizeof(long long)) +
           spikes_.device_bytes() + neurons_ * 12 * static_cast<std::int64_t>(sizeof(Real));
  }
  void fence() { steps_.fence(); }

 private:
  // One network step's launches on `exec`; the step index is read on the device (clock_).
  void launch_step(const Exec& exec) {
    const auto policy = kx::light_weight(Kokkos::RangePolicy<Exec>(exec, 0, neurons_));
    if (params_.tpm) {
      TpmPartitionFunctor<Mem, Real> part{state_.v, order_, c_.tpm_v, static_cast<int>(neurons_)};
      Kokkos::parallel_scan("kbrain::cortex::tpm_partition", policy, part);
    }
    if (params_.lut) launch_neurons<true>(exec);
    else launch_neurons<false>(exec);
    const CortexDelivery<Mem> delivery{synapses_, list_,  flags_, ring_, spikes_.counters(), spikes_.capacity(),
                                       clock_,    slots_, substeps(), synapses_.count > 0};
    if constexpr (kAppend) {
      launch_range<Backend>(exec, "kbrain::cortex::deliver", deliver_warps_ * 32,
                            CortexDeliverWarpsFunctor<Mem>{delivery, deliver_warps_});
    } else {
      const CortexCompactFunctor<Mem> compact{flags_,         list_, spikes_.counters(), spikes_.log(),
                                              spikes_.capacity(), static_cast<int>(neurons_), substeps(), clock_};
      Kokkos::parallel_scan("kbrain::cortex::compact", policy, compact);
      Kokkos::parallel_for("kbrain::cortex::deliver",
                           kx::light_weight(
                               Kokkos::TeamPolicy<Exec>(exec, delivery.deliver ? deliver_league_ : 1, Kokkos::AUTO)),
                           CortexDeliverFunctor<Exec>{delivery});
    }
  }

  template <bool kLut>
  void launch_neurons(const Exec& exec) {
    CortexStepFunctor<Exec, Real, kLut> f;
    f.s = state_;
    f.ring = ring_;
    f.slots = slots_;
    f.clock = clock_;
    f.lut = lut_;
    f.order = order_;
    f.spiked = flags_;
    f.sink = spiking::SpikeSink<Mem>{flags_,           list_, spikes_.counters(), spikes_.log(), spikes_.capacity(),
                                     static_cast<int>(neurons_), kAppend};
    f.c = c_;
    f.noise_seed = seed_;
    launch_range<Backend>(exec, kLut ? "kbrain::cortex::step_lut" : "kbrain::cortex::step", static_cast<int>(neurons_),
                          f);
  }

  point::PointParameters params_;
  std::int64_t neurons_, n_exc_ = 0;
  std::uint64_t seed_;
  point::PointState<Real, Mem> state_;
  CortexConstants<Real> c_;
  spiking::DeviceSynapses<Mem> synapses_;
  std::vector<std::int64_t> offsets_;
  spiking::GenerationTimes generation_;
  int slots_ = 1, deliver_league_ = 1, deliver_warps_ = 1;
  spiking::StepClock<Mem> clock_;
  StepReplay<Backend, Replay> steps_;
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring_;
  Kokkos::View<int*, Mem> flags_, list_, order_;
  Kokkos::View<const Real*, Mem, Kokkos::MemoryTraits<Kokkos::RandomAccess>> lut_;
  // A network step's spikes are logged unordered (appended on GPUs; with sub-steps, by neuron on CPUs).
  spiking::DeviceSpikeLog<Mem> spikes_{"cortex_spike", neurons_, false};
  std::int64_t network_steps_ = 0;
};

}  // namespace kbrain::cortex
