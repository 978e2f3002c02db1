#pragma once
// Drives a network of point neurons on one backend. One step, all launched without waiting for the device, the
// step index read on the device from a step clock (spiking/step_clock.hpp), so that every step issues the same
// launches:
//   1. neuron kernel: take this step's arrivals from the ring, integrate, threshold, reset, and put the spikes in
//      the step's spike sink: on GPUs each spike is appended to the spike list (and a neuron's to the device spike
//      log) by an atomic increment in the neuron kernel itself (unordered; the host sorts the drained log); on CPUs
//      it writes a flag, over chunks of neurons that are each one vector loop (lif_step.hpp, izhikevich_step.hpp);
//   2. Poisson sources put their spikes in the same sink (after the neurons);
//   3. CPUs only: a parallel_scan over blocks of flags turns them into the step's spike list (ascending index,
//      deterministic), its counts in device counters, the neuron spikes appended to the log. A block-wise team compaction on GPUs was
//      tried and was slower (docs/journal/2026-11-22-cobahh-1m-f8edf49.md);
//   4. a fixed league of teams (GPUs: warps; the count is read on the device) adds each spike's CSR synapses'
//      fixed-point weights into ring slot (step + 1 + delay); with dense storage, one thread per target gathers the
//      weight matrix column of the step's spiking neurons instead. One thread of the step's last kernel moves the
//      log and total counters and the clock on (a kernel of its own when nothing is delivered).
// Where the backend declares a step graph (CUDA), the steps are recorded and replayed in batches
// (backends/step_replay.hpp): a small network's step is bound by launches, not work (docs/performance.md, "Small
// spiking networks"). Its
// kernels of one index per thread go through the backend's chained launch where it has one (Hopper and later).
// The host synchronises only to drain the spike log, and before the log could overflow (it counts the steps that
// are safe even if every neuron spiked in each). The ring has max_delay + 1 slots per receptor; integer sums make
// every backend deliver identical input.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "backends/range_launch.hpp"
#include "backends/step_replay.hpp"
#include "core/kokkos_compat.hpp"
#include "models/point/hh_step.hpp"
#include "models/point/izhikevich_step.hpp"
#include "models/point/lif_step.hpp"
#include "models/point/point_setup.hpp"
#include "models/point/point_state.hpp"
#include "spiking/generated_synapses.hpp"
#include "spiking/poisson_drive.hpp"
#include "spiking/projection_generation.hpp"
#include "spiking/spike_exchange.hpp"
#include "spiking/spike_log.hpp"
#include "spiking/step_bytes.hpp"
#include "spiking/step_clock.hpp"

namespace kbrain::point {

// The phases of one step, for a step probe.
enum class StepPhase { Neurons, Compact, Deliver };

// Called before a step and after each of its phases; the default does nothing (and costs nothing). Benchmarks pass
// a probe that fences and times each phase (bench/bench_spiking.cpp).
struct NoStepProbe {
  void begin() {}
  void lap(StepPhase) {}
};

// AtomicAppend: spike lists by atomic append (default on GPUs) or by parallel_scan (default on CPUs); both deliver
// the same input. Probe: NoStepProbe, or a benchmark's (a probe sees each phase, so its steps are not recorded).
// Replay: record the step once and replay it where the backend declares a step graph (benchmarks compare false).
template <class Backend, class Real, bool AtomicAppend = Backend::is_gpu, class Probe = NoStepProbe,
          bool Replay = true>
class PointNetworkSimulation {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;
  using Steps = StepReplay<Backend, Replay && std::is_same<Probe, NoStepProbe>::value>;

  explicit PointNetworkSimulation(const PointSetup& setup)
      : params_(setup.params),
        neurons_(setup.network.neurons),
        sources_(setup.network.poisson_sources),
        seed_(setup.seed) {
    if (neurons_ + sources_ > INT32_MAX) throw std::invalid_argument("more than 2^31-1 neurons + sources");
    state_.allocate(params_, neurons_);
    for (int var = 0; var < NUM_POINT_VARS; ++var)
      if (state_.view(var).extent(0) != 0 && !setup.initial[var].empty()) upload(state_.view(var), setup.initial[var]);
    if (params_.model == NeuronModel::Izhikevich) {
      upload(state_.a, setup.a);
      upload(state_.b, setup.b);
      upload(state_.c, setup.c);
      upload(state_.d, setup.d);
    }
    upload(state_.i_ext, setup.i_ext);
    upload(state_.noise_sd, setup.noise_sd);
    {
      auto made = setup.projections
                      ? spiking::generate_projection_synapses<Exec>(*setup.projections, setup.drive_weight_bound())
                      : spiking::make_synapses<Exec>(setup.network, setup.delays, setup.dense_synapses,
                                                     setup.given_network ? &*setup.given_network : nullptr);
      synapses_ = made.csr;
      dense_ = made.dense;
      offsets_ = std::move(made.offsets);
      generation_ = made.times;
    }
    receptors_ = params_.receptors();
    slots_ = synapses_.max_delay + 1;
    clock_ = spiking::make_step_clock<Mem>(0);
    // GPUs: warps that take the step's spikes in turn, about one per 8 neurons (a small network's step then
    // schedules few blocks; a large one has as many warps in flight as the old 2048 teams of 64 threads).
    deliver_league_ = Backend::is_gpu ? static_cast<int>(std::clamp<std::int64_t>(neurons_ / 8, 64, 8192))
                                      : std::max(1, kx::concurrency<Exec>());
    if (Backend::is_gpu) {  // a spike's row split over warps where rows are long (about 256 synapses a warp)
      const double mean_row = double(synapse_count()) / double(std::max<std::int64_t>(1, neurons_ + sources_));
      while (deliver_group_ < 32 && mean_row >= 256.0 * deliver_group_) deliver_group_ *= 2;
      deliver_league_ = std::max(deliver_group_, deliver_league_ / deliver_group_ * deliver_group_);
    }
    ring_ = Kokkos::View<long long**, Kokkos::LayoutRight, Mem>("spike_ring", slots_ * receptors_, neurons_);
    flags_ = Kokkos::View<int*, Mem>("spike_flags", neurons_ + sources_);
    list_ = Kokkos::View<int*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "spike_list"),
                                    std::max<std::int64_t>(1, neurons_ + sources_));
    poisson_probability_ = setup.poisson_rate_hz * params_.dt * 1e-3;
    if (!setup.poisson_lambda.empty()) {
      std::vector<double> exp_minus(setup.poisson_lambda.size());
      std::vector<long long> weight(setup.poisson_weight.size());
      for (std::size_t i = 0; i < exp_minus.size(); ++i) {
        exp_minus[i] = std::exp(-setup.poisson_lambda[i]);  // on the host: every backend gets the same bits
        weight[i] = std::llround(setup.poisson_weight[i] * synapses_.scale[0]);
      }
      drive_ = spiking::PoissonCountDrive<Mem>{ring_,
                                               netgen::upload<double, Mem>(setup.poisson_lambda, "drive_lambda"),
                                               netgen::upload<double, Mem>(exp_minus, "drive_exp_minus_lambda"),
                                               netgen::upload<long long, Mem>(weight, "drive_weight"),
                                               slots_,
                                               receptors_,
                                               spiking::stream_key(seed_, spiking::Purpose::PoissonCount),
                                               clock_};
      driven_ = true;
    }
    noisy_ = std::any_of(setup.noise_sd.begin(), setup.noise_sd.end(), [](double sd) { return sd != 0.0; });
  }

  // Keep every neuron spike in a device log of `capacity` events (default: room for 64 steps of every neuron
  // spiking on a GPU, 2 on the CPU, within [2^20 (GPU) or 2^16, 2^26]); drain_spikes() empties it. The host moves
  // it into its own buffer before it could overflow; the fewer steps fit, the more often the host has to wait for
  // the device. Before the first step (a recorded step keeps the log it was recorded with).
  void enable_spike_log(std::int64_t capacity = 0) {
    if (steps_done_ > 0) throw std::logic_error("enable_spike_log after the first step");
    spikes_.enable(capacity, Backend::is_gpu);
  }

  int substeps() const { return 1; }  // steps of dt per step() (the runner also drives cortex_hh)

  // Advances one step (asynchronously on a GPU).
  void step() {
    if (steps_done_ >= INT32_MAX - 1) throw std::runtime_error("more than 2^31-2 steps in one run");
    steps_.step([this](const Exec& exec) { launch_step(exec); });
    ++steps_done_;
    spikes_.after_step([this] { fence(); });
  }

  // Whether the steps are replayed from a recording (a backend with a step graph, after the first step).
  bool replays_steps() const { return steps_.replays(); }

  Probe& probe() { return probe_; }

  // Spikes of neurons and Poisson sources so far (waits for the device).
  std::int64_t total_spikes() {
    return spikes_.total([this] { fence(); });
  }

  // Neuron spikes since the last drain as (updates done, neuron), sorted.
  SpikeEvents drain_spikes() { return spikes_.drain([this] { fence(); }); }

  std::vector<double> variable(int var) {
    launch_queued();
    return download(state_.view(var));
  }
  // The state after every step so far (launches the queued steps first).
  const PointState<Real, Mem>& state() {
    launch_queued();
    return state_;
  }
  const PointParameters& params() const { return params_; }
  std::int64_t neurons() const { return neurons_; }
  std::int64_t synapse_count() const { return offsets_.empty() ? 0 : offsets_.back(); }
  // Outgoing synapses of presynaptic p: offsets()[p + 1] - offsets()[p] (neurons, then Poisson sources).
  const std::vector<std::int64_t>& offsets() const { return offsets_; }
  const spiking::GenerationTimes& generation() const { return generation_; }
  std::int64_t steps_done() const { return steps_done_; }
  // The bytes the steps had to move, for compare's achieved GB/s (spiking/step_bytes.hpp: a lower bound).
  double bytes_moved(double synaptic_events) const {
    return double(steps_done_) * double(neurons_) *
               spiking::neuron_step_bytes(state_.live_variables(), receptors_, sizeof(Real)) +
           synaptic_events * spiking::kSynapticEventBytes;
  }
  // The floating-point operations of the steps' neuron updates where the neuron model states its count (Izhikevich:
  // izhikevich_step.hpp), else 0. Synaptic delivery adds fixed-point integers: no floating-point work.
  double flops() const {
    if (params_.model != NeuronModel::Izhikevich) return 0;
    return double(steps_done_) * double(neurons_) *
           double(IzhikevichStepFunctor<Exec, Real>::flops(static_cast<int>(params_.integrator)));
  }
  std::int64_t device_bytes() const {
    return synapses_.device_bytes() + (dense_.empty() ? 0 : dense_.device_bytes()) +
           static_cast<std::int64_t>(ring_.span() * sizeof(long long)) + spikes_.device_bytes() +
           neurons_ * 8 * static_cast<std::int64_t>(sizeof(Real));
  }
  void fence() { steps_.fence(); }

 private:
  // One step's launches on `exec`; every value that changes from step to step is read on the device.
  void launch_step(const Exec& exec) {
    probe_.begin();
    const Kokkos::View<long long*, Mem>& counters = spikes_.counters();
    const long long log_capacity = spikes_.capacity();
    spiking::SpikeSink<Mem> sink{flags_, list_, counters, spikes_.log(), log_capacity, static_cast<int>(neurons_),
                                 AtomicAppend};
    StepInputs<Real, Mem> in;
    in.ring = ring_;
    in.slots = slots_;
    in.receptors = receptors_;
    for (int r = 0; r < spiking::kMaxReceptors; ++r) in.inv_scale[r] = 1.0 / synapses_.scale[r];
    in.i_ext = state_.i_ext;
    in.noise_sd = state_.noise_sd;
    in.spikes = sink;
    in.clock = clock_;
    in.noise_seed = seed_;
    in.noisy = noisy_;
    if (driven_) launch_range<Backend>(exec, "kbrain::spiking::poisson_drive", static_cast<int>(neurons_), drive_);
    launch_neurons(exec, in);
    if (sources_ > 0)
      launch_range<Backend>(exec, "kbrain::spiking::poisson", static_cast<int>(sources_),
                            spiking::PoissonSourcesFunctor<Mem>{sink, static_cast<int>(neurons_),
                                                                poisson_probability_, seed_, clock_});
    probe_.lap(StepPhase::Neurons);
    if constexpr (!AtomicAppend) {
      const int size = static_cast<int>(neurons_ + sources_);
      spiking::SpikeCompactFunctor<Mem> compact{flags_, list_, counters, spikes_.log(), log_capacity, size,
                                                static_cast<int>(neurons_), clock_};
      if constexpr (Backend::is_gpu) {
        Kokkos::parallel_scan("kbrain::spiking::compact", Kokkos::RangePolicy<Exec>(exec, 0, size), compact);
      } else {
        const int blocks = (size + spiking::kCompactBlock - 1) / spiking::kCompactBlock;
        Kokkos::parallel_scan("kbrain::spiking::compact", Kokkos::RangePolicy<Exec>(exec, 0, blocks),
                              spiking::SpikeCompactBlocksFunctor<Mem>{compact});
      }
    }
    probe_.lap(StepPhase::Compact);
    const bool csr = synapses_.count > 0, dense = !dense_.empty();
    if (csr) {
      if constexpr (Backend::is_gpu) {
        launch_range<Backend>(exec, "kbrain::spiking::deliver", deliver_league_ * 32,
                              spiking::SpikeDeliverWarpsFunctor<Mem>{synapses_, list_, counters, ring_, clock_, slots_,
                                                                     receptors_, !dense, log_capacity,
                                                                     deliver_league_, deliver_group_});
      } else {
        spiking::SpikeDeliverFunctor<Exec> deliver{synapses_, list_, counters, ring_, clock_, slots_, receptors_,
                                                   !dense, log_capacity};
        Kokkos::parallel_for("kbrain::spiking::deliver",
                             kx::light_weight(Kokkos::TeamPolicy<Exec>(exec, deliver_league_, Kokkos::AUTO)), deliver);
      }
    }
    if (dense) {
      spiking::DenseDeliverFunctor<Mem> deliver{dense_, list_, counters, ring_, clock_, slots_, receptors_, true,
                                                log_capacity};
      Kokkos::parallel_for("kbrain::spiking::deliver_dense",
                           kx::light_weight(Kokkos::RangePolicy<Exec>(exec, 0, neurons_)), deliver);
    }
    if (!csr && !dense)
      Kokkos::parallel_for("kbrain::spiking::advance", kx::light_weight(Kokkos::RangePolicy<Exec>(exec, 0, 1)),
                           spiking::StepAdvanceFunctor<Mem>{counters, log_capacity, clock_});
    probe_.lap(StepPhase::Deliver);
  }

  void launch_queued() { steps_.launch_queued(); }

  template <class F>
  void launch_first(const Exec& exec, const char* name, const F& f) {
    launch_range<Backend>(exec, name, static_cast<int>(neurons_), spiking::FirstKernelOfStep<F, Mem>{f, clock_});
  }

  // A neuron step with a host form: one neuron per index on GPUs, chunks of kHostChunk neurons (each one vector
  // loop, f(Tag, chunk)) on host backends.
  template <class Tag, class F>
  void launch_chunked(const Exec& exec, const char* name, const F& f) {
    if constexpr (Backend::is_gpu) {
      launch_first(exec, name, f);
    } else {
      const int chunks = static_cast<int>((neurons_ + kHostChunk - 1) / kHostChunk);
      Kokkos::parallel_for(name, Kokkos::RangePolicy<Exec, Tag>(exec, 0, chunks),
                           spiking::FirstKernelOfStep<F, Mem>{f, clock_});
    }
  }

  void launch_neurons(const Exec& exec, const StepInputs<Real, Mem>& in) {
    switch (params_.model) {
      case NeuronModel::Lif: {
        const LifConstants<Real> c = LifConstants<Real>::make(params_);
        with_lif_options(c, [&](auto options) {
          launch_chunked<LifChunkTag>(exec, "kbrain::point::lif", LifStepFunctor<Exec, Real, decltype(options)>{state_, in, c});
        });
        break;
      }
      case NeuronModel::HhTraub: {
        const auto c = HhConstants<Real>::make(params_);
        if (has_coba_options(c))
          launch_chunked<HhChunkTag>(exec, "kbrain::point::hh",
                                                   HhStepFunctor<Exec, Real, HhCobaOptions>{state_, in, c});
        else
          launch_chunked<HhChunkTag>(exec, "kbrain::point::hh", HhStepFunctor<Exec, Real>{state_, in, c});
        break;
      }
      case NeuronModel::Izhikevich:
        launch_chunked<IzhikevichChunkTag>(
            exec, "kbrain::point::izhikevich",
            IzhikevichStepFunctor<Exec, Real>{state_, in, Real(params_.dt), Real(params_.v_threshold),
                                              static_cast<int>(params_.integrator)});
        break;
      case NeuronModel::CortexHh:
        throw std::invalid_argument("cortex_hh networks run on cortex::CortexHhSimulation");
    }
  }

  PointParameters params_;
  std::int64_t neurons_, sources_;
  std::uint64_t seed_;
  PointState<Real, Mem> state_;
  spiking::DeviceSynapses<Mem> synapses_;
  spiking::DenseSynapses<Mem> dense_;
  std::vector<std::int64_t> offsets_;
  spiking::GenerationTimes generation_;
  int receptors_ = 2, slots_ = 1, deliver_league_ = 1, deliver_group_ = 1;
  Probe probe_;
  spiking::StepClock<Mem> clock_;
  Steps steps_;
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring_;
  Kokkos::View<int*, Mem> flags_, list_;
  double poisson_probability_ = 0;
  spiking::PoissonCountDrive<Mem> drive_;
  bool driven_ = false;  // a Poisson-count drive (population networks)
  bool noisy_ = true;  // some neuron has a noise current
  spiking::DeviceSpikeLog<Mem> spikes_{"spike", neurons_, !AtomicAppend};  // spikes of a step: unordered if appended
  std::int64_t steps_done_ = 0;
};

}  // namespace kbrain::point
