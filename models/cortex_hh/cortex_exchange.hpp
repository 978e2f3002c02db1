#pragma once
// A Wang 2012 network step's spikes on the backend, with no host synchronisation, by the point driver's protocol
// (spiking/spike_exchange.hpp): the step's counts in the device counters by step parity, the step's last kernel
// running advance_step (total, log fill, step clock).
//  - GPUs: the neuron kernel appends each spike to the step's list and to the log itself (SpikeSink::append_spike,
//    unordered; the host sorts the drained log), and CortexDeliverWarpsFunctor delivers: no pass over flags;
//  - CPUs: CortexCompactFunctor, a parallel_scan over the spike flags -> the step's list in ascending index order
//    (deterministic, no atomics), its final pass storing the step's counts and appending the spikes to the log;
//    then CortexDeliverFunctor, a fixed league of teams taking the step's spikes in turn.
// Delivery adds each synapse's fixed-point weight into its target's circular event table (native 64-bit integer
// atomics: order-independent sums, so both paths deliver identical input). The log holds (global sub-step + 1,
// neuron).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "spiking/device_synapses.hpp"
#include "spiking/spike_exchange.hpp"
#include "spiking/step_clock.hpp"

namespace kbrain::cortex {

// The device counters are the point driver's (spiking::SpikeCounter).
using spiking::LogOverflow;
using spiking::LogUsed;
using spiking::TotalSpikes;

template <class Mem>
struct CortexCompactFunctor {
  Kokkos::View<const int*, Mem> flags;  // sub-step of the neuron's first spike in this network step + 1, or 0
  Kokkos::View<int*, Mem> list;
  Kokkos::View<long long*, Mem> counters;
  Kokkos::View<int*, Mem> log;  // pairs (global sub-step + 1, neuron); extent 0: no log
  long long log_capacity = 0;   // events
  int neurons = 0;
  int substeps = 1;
  spiking::StepClock<Mem> clock;  // the network step

  KOKKOS_INLINE_FUNCTION void operator()(const int i, int& offset, const bool final) const {
    const int f = flags(i);
    if (final) {
      const int step = clock.later_kernel_step();
      if (f) {
        list(offset) = i;
        if (log_capacity > 0) {
          const long long at = counters(LogUsed) + offset;
          if (at < log_capacity) {
            log(2 * at) = step * substeps + f;  // the global sub-step + 1
            log(2 * at + 1) = i;
          }
        }
      }
      if (i == neurons - 1) {
        const int slot = spiking::step_counter(step);
        counters(slot) = offset + (f ? 1 : 0);  // every spike is a neuron's: both counts are the same
        counters(slot + 1) = counters(slot);
      }
    }
    if (f) ++offset;
  }
};

// What both delivery forms read and do. With EAI (S > 1) a spike in the second half of its network step arrives one
// network step later, so that each arrival lands on the network-step boundary nearest to spike time + delay (error
// within +-network_dt/2, unbiased); with S = 1 the arrival is exactly spike step + delay.
template <class Mem>
struct CortexDelivery {
  spiking::DeviceSynapses<Mem> syn;
  Kokkos::View<const int*, Mem> list, spiked;
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring;  // (slot * 2 + receptor, neuron)
  Kokkos::View<long long*, Mem> counters;
  long long log_capacity = 0;
  spiking::StepClock<Mem> clock;
  int slots = 1, substeps = 1;
  bool deliver = true;  // false: no synapses, only the step's bookkeeping

  KOKKOS_INLINE_FUNCTION long long spikes(const int step) const { return counters(spiking::step_counter(step)); }
  // The step's bookkeeping, by one thread (it zeroes only the other parity's counts: spikes() stays valid).
  KOKKOS_INLINE_FUNCTION void advance() const { spiking::advance_step(counters, log_capacity, clock); }
  KOKKOS_INLINE_FUNCTION int late(const int pre) const {
    return (substeps > 1 && 2 * spiked(pre) > substeps) ? 1 : 0;
  }
  // Adds synapse k's fixed-point weight into its target's slot (native 64-bit integer atomics: any order).
  KOKKOS_INLINE_FUNCTION void synapse(const int step, const int late, const std::int64_t k) const {
    const int dr = syn.delay_receptor(k);
    const int slot = (step + 1 + late + (dr >> 1)) % slots;
    kx::atomic_add_i64(&ring(slot * 2 + (dr & 1), syn.target(k)), static_cast<long long>(syn.weight(k)));
  }
};

// CPUs: a fixed league of teams takes the step's spikes in turn, each team's threads the spike's synapses.
template <class Exec>
struct CortexDeliverFunctor {
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  CortexDelivery<typename Exec::memory_space> d;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int step = d.clock.later_kernel_step();
    const long long count = d.spikes(step);
    if (team.league_rank() == 0) Kokkos::single(Kokkos::PerTeam(team), [&]() { d.advance(); });
    if (!d.deliver) return;
    for (long long s = team.league_rank(); s < count; s += team.league_size()) {
      const int pre = d.list(s), late = d.late(pre);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, d.syn.offsets(pre), d.syn.offsets(pre + 1)),
                           [&](const std::int64_t k) { d.synapse(step, late, k); });
    }
  }
};

// GPUs: each warp (32 consecutive indices) takes the step's spikes in turn, its lanes the spike's synapses; a plain
// f(i) functor, so that it can go through the backend's chained launch (backends/range_launch.hpp).
template <class Mem>
struct CortexDeliverWarpsFunctor {
  CortexDelivery<Mem> d;
  int warps = 1;  // indices / 32

  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const int step = d.clock.later_kernel_step();
    const long long count = d.spikes(step);
    if (i == 0) d.advance();
    if (!d.deliver) return;
    const int lane = i & 31;
    for (long long s = i >> 5; s < count; s += warps) {
      const int pre = d.list(s), late = d.late(pre);
      const std::int64_t end = d.syn.offsets(pre + 1);
      for (std::int64_t k = d.syn.offsets(pre) + lane; k < end; k += 32) d.synapse(step, late, k);
    }
  }
};

}  // namespace kbrain::cortex
