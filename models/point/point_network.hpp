#pragma once
// Drives a network of point neurons on one backend. One step:
//   1. neuron kernel: take this step's arrivals from the ring, integrate, threshold, reset, write spike flags;
//   2. Poisson sources write their flags (after the neurons);
//   3. parallel_scan compacts the flags into the step's spike list (ascending index; the count comes back to the
//      host: the one synchronisation per step);
//   4. one team per spike adds its synapses' fixed-point weights into ring slot (step + 1 + delay);
//   5. optionally the list is appended to a device spike log (drained to the host in batches).
// The ring has max_delay + 1 slots per receptor; integer sums make every backend deliver identical input.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "models/point/hh_step.hpp"
#include "models/point/izhikevich_step.hpp"
#include "models/point/lif_step.hpp"
#include "models/point/point_setup.hpp"
#include "models/point/point_state.hpp"
#include "spiking/device_synapses.hpp"
#include "spiking/spike_exchange.hpp"

namespace kbrain::point {

template <class Backend, class Real>
class PointNetworkSimulation {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;

  explicit PointNetworkSimulation(const PointSetup& setup)
      : params_(setup.params), neurons_(setup.network.neurons), sources_(setup.network.sources), seed_(setup.seed) {
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
    synapses_ = spiking::DeviceSynapses<Mem>::upload(setup.network);
    receptors_ = params_.receptors();
    slots_ = synapses_.max_delay + 1;
    ring_ = Kokkos::View<long long**, Kokkos::LayoutRight, Mem>("spike_ring", slots_ * receptors_, neurons_);
    flags_ = Kokkos::View<int*, Mem>("spike_flags", neurons_ + sources_);
    list_ = Kokkos::View<int*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "spike_list"),
                                    std::max<std::int64_t>(1, neurons_ + sources_));
    poisson_probability_ = setup.poisson_rate_hz * params_.dt * 1e-3;
  }

  // Keep every neuron spike in a device log of `capacity` events; drain_spikes() empties it (and is called
  // automatically before it would overflow, into the host buffer returned by the next drain_spikes()).
  void enable_spike_log(std::int64_t capacity = std::int64_t(1) << 20) {
    log_capacity_ = std::max<std::int64_t>(capacity, neurons_);
    log_ = Kokkos::View<int*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "spike_log"), 2 * log_capacity_);
  }

  int substeps() const { return 1; }

  // Advances one step; returns the number of spikes (neurons and Poisson sources) of this step.
  std::int64_t step() {
    if (steps_done_ >= INT32_MAX - 1) throw std::runtime_error("more than 2^31-2 steps in one run");
    const int n = static_cast<int>(steps_done_);
    StepInputs<Real, Mem> in;
    in.ring = ring_;
    in.slot_row = (n % slots_) * receptors_;
    for (int r = 0; r < spiking::kMaxReceptors; ++r) in.inv_scale[r] = 1.0 / synapses_.scale[r];
    in.i_ext = state_.i_ext;
    in.noise_sd = state_.noise_sd;
    in.spiked = flags_;
    in.noise_seed = seed_;
    in.step = n;
    launch_neurons(in);
    if (sources_ > 0) {
      spiking::PoissonFlagFunctor<Mem> pf{flags_, static_cast<int>(neurons_), poisson_probability_, seed_, n};
      Kokkos::parallel_for("kbrain::spiking::poisson", Kokkos::RangePolicy<Exec>(0, sources_), pf);
    }
    int count = 0;
    spiking::SpikeCompactFunctor<Mem> compact{flags_, list_};
    Kokkos::parallel_scan("kbrain::spiking::compact", Kokkos::RangePolicy<Exec>(0, neurons_ + sources_), compact,
                          count);
    if (count > 0 && synapses_.count > 0) {
      spiking::SpikeDeliverFunctor<Exec> deliver{synapses_, list_, ring_, n, slots_, receptors_};
      Kokkos::parallel_for("kbrain::spiking::deliver", Kokkos::TeamPolicy<Exec>(count, Kokkos::AUTO), deliver);
    }
    ++steps_done_;
    if (count > 0 && log_capacity_ > 0) log_step(count);
    return count;
  }

  // Neuron spikes since the last drain as (updates done, neuron), sorted.
  SpikeEvents drain_spikes() {
    move_log_to_host();
    SpikeEvents out;
    out.swap(host_events_);
    return out;
  }

  std::vector<double> variable(int var) const { return download(state_.view(var)); }
  const PointState<Real, Mem>& state() const { return state_; }
  const PointParameters& params() const { return params_; }
  std::int64_t neurons() const { return neurons_; }
  std::int64_t synapse_count() const { return synapses_.count; }
  std::int64_t steps_done() const { return steps_done_; }
  std::int64_t device_bytes() const {
    return synapses_.device_bytes() + static_cast<std::int64_t>(ring_.span() * sizeof(long long)) +
           neurons_ * 8 * static_cast<std::int64_t>(sizeof(Real));
  }
  void fence() const { Exec().fence(); }

 private:
  void launch_neurons(const StepInputs<Real, Mem>& in) {
    const auto policy = Kokkos::RangePolicy<Exec>(0, neurons_);
    switch (params_.model) {
      case NeuronModel::Lif: {
        LifStepFunctor<Exec, Real> f{state_, in, LifConstants<Real>::make(params_)};
        Kokkos::parallel_for("kbrain::point::lif", policy, f);
        break;
      }
      case NeuronModel::HhTraub: {
        HhStepFunctor<Exec, Real> f{state_, in, HhConstants<Real>::make(params_)};
        Kokkos::parallel_for("kbrain::point::hh", policy, f);
        break;
      }
      case NeuronModel::Izhikevich: {
        IzhikevichStepFunctor<Exec, Real> f{state_, in, Real(params_.dt), Real(params_.v_threshold),
                                            static_cast<int>(params_.integrator)};
        Kokkos::parallel_for("kbrain::point::izhikevich", policy, f);
        break;
      }
    }
  }

  void log_step(int count) {
    // Only neuron spikes are logged: the list is ascending, so they are its first entries.
    int neuron_spikes = count;
    if (sources_ > 0) {
      neuron_spikes = 0;
      Kokkos::parallel_reduce(
          "kbrain::spiking::count_neurons", Kokkos::RangePolicy<Exec>(0, count),
          spiking::CountBelowFunctor<Mem>{list_, static_cast<int>(neurons_)}, neuron_spikes);
    }
    if (neuron_spikes == 0) return;
    if (log_used_ + neuron_spikes > log_capacity_) move_log_to_host();
    spiking::SpikeLogFunctor<Mem> f{list_, log_, static_cast<int>(log_used_), static_cast<int>(steps_done_)};
    Kokkos::parallel_for("kbrain::spiking::log", Kokkos::RangePolicy<Exec>(0, neuron_spikes), f);
    log_used_ += neuron_spikes;
  }

  void move_log_to_host() {
    if (log_used_ == 0) return;
    auto sub = Kokkos::subview(log_, std::make_pair<std::int64_t, std::int64_t>(0, 2 * log_used_));
    auto h = Kokkos::create_mirror_view(sub);
    Kokkos::deep_copy(h, sub);
    for (std::int64_t k = 0; k < log_used_; ++k) host_events_.emplace_back(h(2 * k), h(2 * k + 1));
    log_used_ = 0;
  }

  PointParameters params_;
  std::int64_t neurons_, sources_;
  std::uint64_t seed_;
  PointState<Real, Mem> state_;
  spiking::DeviceSynapses<Mem> synapses_;
  int receptors_ = 2, slots_ = 1;
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring_;
  Kokkos::View<int*, Mem> flags_, list_, log_;
  double poisson_probability_ = 0;
  std::int64_t log_capacity_ = 0, log_used_ = 0;
  SpikeEvents host_events_;
  std::int64_t steps_done_ = 0;
};

}  // namespace kbrain::point
