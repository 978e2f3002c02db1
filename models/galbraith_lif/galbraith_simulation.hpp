#pragma once
// Drives a Galbraith network on one backend. Event-driven: one fused kernel per step (chained launches where the
// backend has them, so a launch's start overlaps the previous step's tail). Agent: the study's five kernels per step,
// the synapse stage a team of L threads per synapse. The host waits only to drain spike flags (when spike files are
// written), at stage fences (simulation.stage_timing) and at the end.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <Kokkos_Core.hpp>

#include "backends/optional_traits.hpp"
#include "core/timing/stopwatch.hpp"
#include "models/common/device_sampler.hpp"
#include "models/common/spike_flag_ring.hpp"
#include "models/galbraith_lif/galbraith_kernels.hpp"
#include "models/galbraith_lif/galbraith_plan.hpp"
#include "models/galbraith_lif/galbraith_schema.hpp"
#include "models/galbraith_lif/galbraith_step_bytes.hpp"
#include "models/runtime/memory_statement.hpp"
#include "models/runtime/run_request.hpp"
#include "models/runtime/run_result.hpp"

namespace kbrain::galbraith {

// Refuses (NotEnoughMemory, exit 2) a network whose arrays exceed the memory `device` has free, before anything is
// allocated; the message names kbrain's bytes, those of the study's layout (Table 4.2) and the largest network of
// the topology that fits. state_on_host: the device is the host, which also holds the plan's network.
void require_memory(const GalbraithPlan& plan, std::int64_t real_bytes, std::uint64_t available,
                    const std::string& device, bool state_on_host = false);

// Per-neuron spike counts as CSV ("neuron,count"), written to a temporary name and renamed.
void write_spike_counts(const std::filesystem::path& file, const std::vector<std::int32_t>& counts);

// A 53-bit digest of the per-neuron counts (order-sensitive): equal digests for equal count vectors, so compare can
// tell whether two runs' counts agree without keeping every spike.
double count_digest(const std::vector<std::int32_t>& counts);

template <class Real, class Mem>
struct GalbraithReader {
  GalbraithState<Real, Mem> st;
  KOKKOS_INLINE_FUNCTION Real operator()(int var, std::int64_t i) const {
    return var == SPIKE_COUNT ? Real(st.count(i)) : st.V(i);
  }
};

inline constexpr const char* kAgentStages[] = {"stimulus", "dendrites", "somas", "axons", "synapses"};
inline constexpr const char* kEventStage = "step";

template <class Backend, class Real>
class GalbraithSimulation {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using Reader = GalbraithReader<Real, Mem>;
  using Sampler = DeviceSampler<Exec, Real, Reader>;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;

  // The device layout's bytes (kbrain_layout_bytes), refused (exit 2) beyond the backend's free memory; on the host
  // the run adds the spike counts.
  static MemoryStatement memory(const GalbraithPlan& plan, const RunRequest&) {
    const auto hw = Backend::describe();
    require_memory(plan, sizeof(Real), hw.free_memory_bytes, std::string(Backend::name) + " (" + hw.device + ")",
                   !Backend::is_gpu);
    MemoryStatement m;
    m.device_bytes = double(kbrain_layout_bytes(plan.neurons(), plan.synapses(), plan.taps(), plan.update, sizeof(Real)));
    m.host_bytes = 4.0 * double(plan.neurons());
    return m;
  }

  GalbraithSimulation(const GalbraithPlan& plan, const RunRequest& request, RunResult& res)
      : plan_(plan), p_(SomaParams<Real>::from(plan)), out_dir_(request.out_dir) {
    st_.allocate(plan);  // the runner has asked memory() first: it refuses what does not fit
    st_.upload(plan);
    if (request.write_spikes) ring_ = SpikeFlagRing<Exec>(plan.neurons());
    res.connections = double(plan.synapses());
    if (plan.update == SynapseUpdate::Agent) agent_team_ = team_size();
    // GPUs: a team per neuron when neurons have many inputs, else a thread per neuron (host: always a thread).
    const std::int64_t in_degree = plan.synapses() / std::max<std::int64_t>(1, plan.neurons());
    if (Backend::is_gpu && in_degree >= kTeamInDegree) event_team_ = in_degree >= 128 ? 128 : 32;
    res.strategy = plan.update == SynapseUpdate::Event
                       ? fmt::format("event-driven: one fused kernel per step, {}, a PSC buffer of {} taps per neuron{}",
                                     event_team_ > 0 ? fmt::format("a team of {} threads per neuron", event_team_)
                                                     : std::string("a thread per neuron"),
                                     plan.taps(), chained() && event_team_ == 0 ? ", chained launches" : "")
                       : Backend::is_gpu
                           ? fmt::format("agent: five kernels per step, a team of {} threads per synapse", agent_team_)
                           : std::string("agent: five kernels per step, a thread per synapse (the taps a loop)");
    if (plan.stage_timing) res.strategy += "; stages fenced";
    stage_s_.assign(plan.update == SynapseUpdate::Event ? 1 : 5, 0.0);
  }

  std::int64_t steps_per_call() const { return 1; }
  std::int64_t steps_done() const { return steps_; }
  void fence() { Exec().fence(); }
  std::int64_t device_bytes() const { return kbrain_layout_bytes(st_.n, st_.s, st_.taps, plan_.update, sizeof(Real)); }
  Reader state() const { return Reader{st_}; }

  void step() {
    const auto n = static_cast<std::int32_t>(steps_);
    if (plan_.update == SynapseUpdate::Event) {
      stage(0, [&] {
        if (event_team_ > 0) {
          Kokkos::parallel_for("kbrain::galbraith::event_step_team",
                               Kokkos::TeamPolicy<Exec>(static_cast<int>(st_.n), event_team_),
                               EventStepTeam<Real, Mem, Exec>{EventViews<Real, Mem>::of(st_), p_, n});
          return;
        }
        const EventStep<Real, Mem> f{EventViews<Real, Mem>::of(st_), p_, n};
        if constexpr (kHasChained)
          if (chained()) {
            Backend::chained_launch::template parallel_for<256, 1>(f, 0, static_cast<int>(st_.n));
            return;
          }
        // Static chunks: Kokkos' dynamic schedule measured 10-40x slower on 16 threads (docs/journal).
        Kokkos::parallel_for("kbrain::galbraith::event_step", range(st_.n), f);
      });
    } else {
      stage(0, [&] { Kokkos::parallel_for("kbrain::galbraith::stimulus", range(st_.n), StimulusStage<Real, Mem>::of(st_)); });
      stage(1, [&] { Kokkos::parallel_for("kbrain::galbraith::dendrites", range(st_.n), DendriteStage<Real, Mem>::of(st_)); });
      stage(2, [&] { Kokkos::parallel_for("kbrain::galbraith::somas", range(st_.n), SomaStage<Real, Mem>::of(st_, p_, n)); });
      stage(3, [&] { Kokkos::parallel_for("kbrain::galbraith::axons", range(st_.n), AxonStage<Real, Mem>::of(st_)); });
      stage(4, [&] {
        Kokkos::parallel_for("kbrain::galbraith::synapses", Kokkos::TeamPolicy<Exec>(static_cast<int>(st_.s), agent_team_),
                             SynapseStage<Real, Mem, Exec>::of(st_, n));
      });
    }
    if (ring_.active()) ring_.capture(st_.flags_of_step(steps_), steps_ + 1);
    ++steps_;
  }

  bool spikes_due(std::int64_t, std::int64_t, bool) const { return ring_.full(); }
  SpikeEvents drain_spikes(bool) { return ring_.drain(); }

  // Spike totals and digest, stage times (stage timing), and spike_counts.csv beside the run's files.
  void finish(RunResult& res) {
    const std::vector<std::int32_t> counts = this->counts();
    double total = 0;
    for (auto c : counts) total += c;
    res.figures.emplace_back("neuron_spikes", total);
    res.figures.emplace_back("synapse_steps", double(st_.s) * double(steps_));
    res.bytes_moved = galbraith_bytes_moved(*plan_.network, counts, steps_, st_.taps, plan_.update, sizeof(Real));
    res.values.emplace_back("neuron_spikes", total);
    res.values.emplace_back("count_digest", count_digest(counts));
    if (plan_.stage_timing)
      for (std::size_t k = 0; k < stage_s_.size(); ++k)
        res.values.emplace_back(std::string("stage_") + (stage_s_.size() == 1 ? kEventStage : kAgentStages[k]) + "_s",
                                 stage_s_[k]);
    if (!out_dir_.empty()) write_spike_counts(out_dir_ / "spike_counts.csv", counts);
  }

  std::vector<std::int32_t> counts() const {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st_.count);
    return std::vector<std::int32_t>(host.data(), host.data() + st_.n);
  }

 private:
  static constexpr bool kHasChained = kHasChainedLaunch<Backend>;
  // Mean inputs per neuron from which a GPU step sums them with a team per neuron.
  static constexpr std::int64_t kTeamInDegree = 16;

  static Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>> range(std::int64_t count) {
    return Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, count);
  }
  bool chained() const {
    if constexpr (kHasChained) return Backend::chained_launch::available();
    return false;
  }
  // GPU: one thread per filter tap (the study's block of pscFilterSize threads), within the device's team limit;
  // host: one thread per synapse, the taps a loop.
  int team_size() const {
    if constexpr (!Backend::is_gpu) return 1;
    const int most = Kokkos::TeamPolicy<Exec>(1, 1).team_size_max(SynapseStage<Real, Mem, Exec>::of(st_, 0),
                                                                   Kokkos::ParallelForTag());
    return static_cast<int>(std::min<std::int64_t>(st_.taps, most));
  }
  template <class F>
  void stage(std::size_t k, F&& launch) {
    if (!plan_.stage_timing) return launch();
    Exec().fence();
    Stopwatch watch;
    launch();
    Exec().fence();
    stage_s_[k] += watch.seconds();
  }

  const GalbraithPlan& plan_;
  SomaParams<Real> p_;
  std::filesystem::path out_dir_;
  GalbraithState<Real, Mem> st_;
  SpikeFlagRing<Exec> ring_;
  std::vector<double> stage_s_;
  int event_team_ = 0;  // > 0: the event step's team size (EventStepTeam)
  int agent_team_ = 1;  // threads per synapse of the agent synapse stage
  std::int64_t steps_ = 0;
};

}  // namespace kbrain::galbraith
