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

// With EAI (S > 1) a spike in the second half of its network step arrives one network step later, so that each
// arrival lands on the network-step boundary nearest to spike time + delay (error within +-network_dt/2,
// unbiased); with S = 1 the arrival is exactly spike step + delay.
template <class Mem>
KOKKOS_INLINE_FUNCTION void cortex_deliver_synapse(const spiking::DeviceSynapses<Mem>& syn,
                                                   const Kokkos::View<long long**, Kokkos::LayoutRight, Mem>& ring,
                                                   const int step, const int late, const int slots,
                                                   const std::int64_t k) {
  const int dr = syn.delay_receptor(k);
  const int slot = (step + 1 + late + (dr >> 1)) % slots;
  kx::atomic_add_i64(&ring(slot * 2 + (dr & 1), syn.target(k)), static_cast<long long>(syn.weight(k)));
}

template <class Exec>
struct CortexDeliverFunctor {
  using Mem = typename Exec::memory_space;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  spiking::DeviceSynapses<Mem> syn;
  Kokkos::View<const int*, Mem> list, spiked;
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring;  // (slot * 2 + receptor, neuron)
  Kokkos::View<long long*, Mem> counters;
  long long log_capacity = 0;
  spiking::StepClock<Mem> clock;
  int slots = 1, substeps = 1;
  bool deliver = true;  // false: no synapses, only the step's bookkeeping

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int step = clock.later_kernel_step();
    const long long count = counters(spiking::step_counter(step));
    if (team.league_rank() == 0)
      Kokkos::single(Kokkos::PerTeam(team), [&]() { spiking::advance_step(counters, log_capacity, clock); });
    if (!deliver) return;
    for (long long s = team.league_rank(); s < count; s += team.league_size()) {
      const int pre = list(s);
      const int late = (substeps > 1 && 2 * spiked(pre) > substeps) ? 1 : 0;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, syn.offsets(pre), syn.offsets(pre + 1)),
                           [&](const std::int64_t k) { cortex_deliver_synapse(syn, ring, step, late, slots, k); });
    }
  }
};

// The GPU form: each warp (32 consecutive indices) takes the step's spikes in turn, its lanes the spike's synapses;
// a plain f(i) functor, so that it can go through the backend's chained launch (backends/range_launch.hpp).
template <class Mem>
struct CortexDeliverWarpsFunctor {
  spiking::DeviceSynapses<Mem> syn;
  Kokkos::View<const int*, Mem> list, spiked;
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring;  // (slot * 2 + receptor, neuron)
  Kokkos::View<long long*, Mem> counters;
  long long log_capacity = 0;
  spiking::StepClock<Mem> clock;
  int slots = 1, substeps = 1;
  bool deliver = true;  // false: no synapses, only the step's bookkeeping
  int warps = 1;        // indices / 32

  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const int step = clock.later_kernel_step();
    const long long count = counters(spiking::step_counter(step));
    if (i == 0) spiking::advance_step(counters, log_capacity, clock);  // zeroes the other parity's counts only
    if (!deliver) return;
    const int lane = i & 31;
    for (long long s = i >> 5; s < count; s += warps) {
      const int pre = list(s);
      const int late = (substeps > 1 && 2 * spiked(pre) > substeps) ? 1 : 0;
      const std::int64_t end = syn.offsets(pre + 1);
      for (std::int64_t k = syn.offsets(pre) + lane; k < end; k += 32)
        cortex_deliver_synapse(syn, ring, step, late, slots, k);
    }
  }
};

}  // namespace kbrain::cortex
