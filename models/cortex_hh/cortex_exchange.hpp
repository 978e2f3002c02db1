#pragma once
// A Wang 2012 network step's spikes on the backend, with no host synchronisation (as the point driver's
// spiking/spike_exchange.hpp): the spike count of a step, the running total and the log's fill stay in device
// counters, read by the kernels that need them.
//  - CortexCompactFunctor: parallel_scan over the spike flags -> the step's spike list in ascending index order
//    (deterministic, no atomics); its final pass stores the step's count, adds it to the total and appends the
//    spikes to the device log as (global sub-step + 1, neuron);
//  - CortexDeliverFunctor: a fixed league of teams takes the step's spikes in turn (the count read on the device),
//    each team's threads the spike's synapses, adding their fixed-point weights into the targets' circular event
//    tables (native 64-bit integer atomics: order-independent sums); one thread moves the log's fill and the step
//    clock on (spiking/step_clock.hpp: the step is read on the device, so every step issues the same launches).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "spiking/device_synapses.hpp"
#include "spiking/spike_exchange.hpp"
#include "spiking/step_clock.hpp"

namespace kbrain::cortex {

// The device counters are the point driver's (spiking::SpikeCounter); a network step's count sits in StepSpikes.
using spiking::LogOverflow;
using spiking::LogUsed;
using spiking::StepSpikes;
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
      if (f) {
        list(offset) = i;
        if (log_capacity > 0) {
          const long long at = counters(LogUsed) + offset;
          if (at < log_capacity) {
            log(2 * at) = clock.later_kernel_step() * substeps + f;  // the global sub-step + 1
            log(2 * at + 1) = i;
          }
        }
      }
      if (i == neurons - 1) {
        const int count = offset + (f ? 1 : 0);
        counters(StepSpikes) = count;
        counters(TotalSpikes) += count;
      }
    }
    if (f) ++offset;
  }
};

// With EAI (S > 1) a spike in the second half of its network step arrives one network step later, so that each
// arrival lands on the network-step boundary nearest to spike time + delay (error within +-network_dt/2,
// unbiased); with S = 1 the arrival is exactly spike step + delay.
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
  bool deliver = true;  // false: no synapses, only the log's fill and the clock move on

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const long long count = counters(StepSpikes);
    const int step = clock.later_kernel_step();
    if (team.league_rank() == 0)
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        clock.advance();  // writes the word the next step's first kernel reads; this kernel reads the other
        if (log_capacity == 0) return;
        const long long used = counters(LogUsed) + count;
        if (used > log_capacity) counters(LogOverflow) = 1;
        counters(LogUsed) = used > log_capacity ? log_capacity : used;
      });
    if (!deliver) return;
    for (long long s = team.league_rank(); s < count; s += team.league_size()) {
      const int pre = list(s);
      const int late = (substeps > 1 && 2 * spiked(pre) > substeps) ? 1 : 0;
      const std::int64_t begin = syn.offsets(pre), end = syn.offsets(pre + 1);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const std::int64_t k) {
        const int dr = syn.delay_receptor(k);
        const int slot = (step + 1 + late + (dr >> 1)) % slots;
        kx::atomic_add_i64(&ring(slot * 2 + (dr & 1), syn.target(k)), static_cast<long long>(syn.weight(k)));
      });
    }
  }
};

}  // namespace kbrain::cortex
