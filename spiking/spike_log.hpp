#pragma once
// The device spike log of a network driver (models/point/point_network.hpp, models/cortex_hh/cortex_network.hpp):
//  - default_spike_log_capacity: its default size, shared with the memory planner that states it before anything
//    is allocated (spiking/network_memory.hpp via models/point/spiking_run.hpp): room for 64 steps of every neuron
//    spiking on a GPU (the host drains it rarely; each drain waits for the device), 2 on a CPU, within [2^20 (GPU)
//    or 2^16, 2^26] events, and never fewer than one step's worth;
//  - DeviceSpikeLog: the log and the counter array (spiking::SpikeCounter) the step's kernels fill without the host
//    waiting (spiking/spike_exchange.hpp), and the host side: the host waits only to read the counters, to drain,
//    and before the log could overflow (after each step it counts down the steps that surely fit even if every
//    neuron spiked in each, then moves the log into its own buffer when another step might not fit).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "spiking/spike_exchange.hpp"

namespace kbrain::spiking {

inline std::int64_t default_spike_log_capacity(std::int64_t neurons, bool gpu) {
  const std::int64_t c = std::clamp<std::int64_t>((gpu ? 64 : 2) * neurons, std::int64_t(1) << (gpu ? 20 : 16),
                                                  std::int64_t(1) << 26);
  return std::max(c, neurons);
}

// Events [first, end) of `events` in (step, neuron) order. The step's kernels finish before the next step's start,
// so a log holds its steps in order and only each step's spikes (appended in any order) need sorting: far cheaper
// than sorting the whole part when a part holds a million events. A part whose steps are out of order is sorted
// whole.
inline void sort_logged_events(std::vector<std::pair<std::int64_t, std::int64_t>>& events, std::size_t first) {
  const auto begin = events.begin() + static_cast<std::ptrdiff_t>(first);
  const auto by_step = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(begin, events.end(), by_step)) {
    std::sort(begin, events.end());
    return;
  }
  for (auto run = begin; run != events.end();) {
    const auto next = std::upper_bound(run, events.end(), *run, by_step);
    std::sort(run, next);
    run = next;
  }
}

template <class Mem>
class DeviceSpikeLog {
 public:
  using Events = std::vector<std::pair<std::int64_t, std::int64_t>>;

  // neurons: the most spikes one step can log. ordered: whether the kernels log the spikes in ascending (time,
  // neuron) order; else each part moved to the host is sorted (parts hold whole steps, in order).
  DeviceSpikeLog(const std::string& label, std::int64_t neurons, bool ordered)
      : label_(label), neurons_(std::max<std::int64_t>(1, neurons)), ordered_(ordered),
        counters_(label + "_counters", kSpikeCounters), host_(Kokkos::create_mirror_view(counters_)) {}

  // Keep every neuron spike in a log of `capacity` events (<= 0: default_spike_log_capacity), at least one step's.
  void enable(std::int64_t capacity, bool gpu) {
    if (capacity <= 0) capacity = default_spike_log_capacity(neurons_, gpu);
    capacity_ = std::max<std::int64_t>(capacity, neurons_);
    log_ = Kokkos::View<int*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label_ + "_log"), 2 * capacity_);
    safe_steps_ = 0;
  }

  const Kokkos::View<long long*, Mem>& counters() const { return counters_; }
  const Kokkos::View<int*, Mem>& log() const { return log_; }  // pairs (time, neuron)
  long long capacity() const { return capacity_; }             // events; 0: no log
  std::int64_t device_bytes() const { return 2 * capacity_ * static_cast<std::int64_t>(sizeof(int)); }

  // After each step. wait() waits for every step issued so far.
  template <class Wait>
  void after_step(Wait&& wait) {
    if (capacity_ > 0 && --safe_steps_ <= 0) check(wait);
  }
  // Spikes counted so far (waits).
  template <class Wait>
  std::int64_t total(Wait&& wait) {
    read(wait);
    return host_(TotalSpikes);
  }
  // The logged spikes since the last drain, sorted (waits).
  template <class Wait>
  Events drain(Wait&& wait) {
    move_to_host(wait);
    Events out;
    out.swap(events_);
    return out;
  }

 private:
  template <class Wait>
  void read(Wait&& wait) {
    wait();
    Kokkos::deep_copy(host_, counters_);
    if (host_(LogOverflow) != 0) throw std::logic_error("spike log overflow (host check missed)");
  }
  // Moves the log to the host when another step might not fit; then counts the steps that surely fit.
  template <class Wait>
  void check(Wait&& wait) {
    read(wait);
    if (capacity_ - host_(LogUsed) < neurons_) move_to_host(wait);
    safe_steps_ = (capacity_ - host_(LogUsed)) / neurons_;
  }
  template <class Wait>
  void move_to_host(Wait&& wait) {
    if (capacity_ == 0) return;
    read(wait);
    const std::int64_t used = host_(LogUsed);
    if (used == 0) return;
    auto sub = Kokkos::subview(log_, std::make_pair<std::int64_t, std::int64_t>(0, 2 * used));
    auto h = Kokkos::create_mirror_view(sub);
    Kokkos::deep_copy(h, sub);
    const std::size_t first = events_.size();
    events_.reserve(first + static_cast<std::size_t>(used));
    for (std::int64_t k = 0; k < used; ++k) events_.emplace_back(h(2 * k), h(2 * k + 1));
    if (!ordered_) sort_logged_events(events_, first);
    host_(LogUsed) = 0;
    Kokkos::deep_copy(Kokkos::subview(counters_, int(LogUsed)), 0LL);
    safe_steps_ = capacity_ / neurons_;
  }

  std::string label_;
  std::int64_t neurons_;
  bool ordered_;
  Kokkos::View<long long*, Mem> counters_;
  typename Kokkos::View<long long*, Mem>::HostMirror host_;
  Kokkos::View<int*, Mem> log_;
  long long capacity_ = 0;
  std::int64_t safe_steps_ = 0;
  Events events_;
};

}  // namespace kbrain::spiking
