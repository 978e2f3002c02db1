#pragma once
// Per-step spike handling on a backend, without a host synchronisation per step:
//  - SpikeCompactFunctor: parallel_scan over the spike flags -> the step's spike list, in ascending index order
//    (deterministic; no atomics). Its final pass also stores the step's spike counts in the device counters and
//    appends the neuron spikes to the device spike log;
//  - AtomicAppendFunctor (GPU default): one pass over the flags; each spike takes its list slot (and, for a
//    neuron, its log slot) with an atomic increment. One light kernel instead of the scan's passes; the list is
//    then unordered (delivery sums integers, so the order does not matter) and the host sorts the drained log;
//  - StepAdvanceFunctor: one thread that moves the log and total counters on;
//  - SpikeDeliverFunctor: a fixed league of teams loops over the step's spikes (the count is read on the device),
//    the team's threads over the outgoing synapses, each adding its fixed-point weight into the target's ring slot
//    for step + 1 + delay (integer atomics, native 64-bit: order-independent sums);
//  - DenseDeliverFunctor: for dense neuron->neuron storage, one thread per target sums the weight-matrix column
//    entries of the step's spiking neurons (coalesced row reads, no atomics, fixed order);
//  - PoissonFlagFunctor: source s spikes at step n when uniform(seed, s, n) < rate * dt.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "spiking/counter_draws.hpp"
#include "spiking/device_synapses.hpp"

namespace kbrain::spiking {

// Slots of the device counter array of a network simulation. The step's counts alternate between two pairs by
// step parity (StepSpikes + 2 * (step & 1), +1 for the neuron spikes); the advance kernel zeroes the next step's
// pair, so a compaction that accumulates (rather than stores) its counts needs no extra launch.
enum SpikeCounter : int { LogUsed = 0, TotalSpikes = 1, LogOverflow = 2, StepSpikes = 3, StepNeuronSpikes = 4,
                          kSpikeCounters = 7 };
KOKKOS_INLINE_FUNCTION int step_counter(int step) { return StepSpikes + 2 * (step & 1); }

template <class Mem>
struct SpikeCompactFunctor {
  Kokkos::View<const int*, Mem> flags;
  Kokkos::View<int*, Mem> list;
  Kokkos::View<long long*, Mem> counters;
  Kokkos::View<int*, Mem> log;  // pairs (step, neuron); extent 0: no log
  long long log_capacity = 0;   // events
  int size = 0;                 // flags to scan (neurons + sources)
  int neurons = 0;
  int step = 0;                 // logged with each spike (the network logs updates done)
  int slot = StepSpikes;        // step_counter(step)

  KOKKOS_INLINE_FUNCTION void operator()(const int i, int& offset, const bool final) const {
    const int f = flags(i);
    if (final) {
      if (f) {
        list(offset) = i;
        if (i < neurons && log_capacity > 0) {
          const long long at = counters(LogUsed) + offset;
          if (at < log_capacity) {
            log(2 * at) = step;
            log(2 * at + 1) = i;
          }
        }
      }
      if (i == neurons - 1) counters(slot + 1) = offset + f;
      if (i == size - 1) counters(slot) = offset + f;
    }
    offset += f;
  }
};

template <class Mem>
struct AtomicAppendFunctor {
  Kokkos::View<const int*, Mem> flags;
  Kokkos::View<int*, Mem> list;
  Kokkos::View<long long*, Mem> counters;  // the step's pair (slot, slot + 1) starts at 0
  Kokkos::View<int*, Mem> log;
  long long log_capacity = 0;
  int neurons = 0, step = 0, slot = StepSpikes;

  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    if (!flags(i)) return;
    list(kx::atomic_increment_i64(&counters(slot))) = i;
    if (i < neurons) {
      const long long at = counters(LogUsed) + kx::atomic_increment_i64(&counters(slot + 1));
      if (log_capacity > 0 && at < log_capacity) {
        log(2 * at) = step;
        log(2 * at + 1) = i;
      }
    }
  }
};

template <class Mem>
struct StepAdvanceFunctor {
  Kokkos::View<long long*, Mem> counters;
  long long log_capacity = 0;
  int slot = StepSpikes;  // this step's pair; the other pair (the next step's) is zeroed
  KOKKOS_INLINE_FUNCTION void operator()(const int) const {
    const int next = slot == StepSpikes ? StepSpikes + 2 : StepSpikes;
    counters(next) = 0;
    counters(next + 1) = 0;
    counters(TotalSpikes) += counters(slot);
    if (log_capacity > 0) {
      const long long used = counters(LogUsed) + counters(slot + 1);
      if (used > log_capacity) counters(LogOverflow) = 1;
      counters(LogUsed) = used > log_capacity ? log_capacity : used;
    }
  }
};

template <class Exec>
struct SpikeDeliverFunctor {
  using Mem = typename Exec::memory_space;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  DeviceSynapses<Mem> syn;
  Kokkos::View<const int*, Mem> list;
  Kokkos::View<const long long*, Mem> counters;  // counters(counter): entries of list
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring;  // (slot * receptors + receptor, neuron)
  int step = 0, slots = 1, receptors = 2, counter = StepSpikes;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const long long count = counters(counter);
    for (long long s = team.league_rank(); s < count; s += team.league_size()) {
      const int pre = list(s);
      const std::int64_t begin = syn.offsets(pre), end = syn.offsets(pre + 1);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const std::int64_t k) {
        const int dr = syn.delay_receptor(k);
        const int slot = (step + 1 + (dr >> 1)) % slots;
        kx::atomic_add_i64(&ring(slot * receptors + (dr & 1), syn.target(k)), static_cast<long long>(syn.weight(k)));
      });
    }
  }
};

template <class Mem>
struct DenseDeliverFunctor {
  DenseSynapses<Mem> dense;
  Kokkos::View<const int*, Mem> list;
  Kokkos::View<const long long*, Mem> counters;  // counters(counter): entries of list; +1: how many are neurons
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring;
  int step = 0, slots = 1, receptors = 2, counter = StepSpikes;

  KOKKOS_INLINE_FUNCTION void operator()(const int post) const {
    if (counters(counter + 1) == 0) return;
    const long long count = counters(counter);
    long long sum[kMaxReceptors] = {0, 0};
    for (long long s = 0; s < count; ++s) {
      const int pre = list(s);
      if (pre < dense.neurons) sum[dense.receptor(pre)] += dense.weight(pre, post);
    }
    const int slot = (step + 1 + dense.delay) % slots;
    for (int r = 0; r < receptors; ++r)
      if (sum[r] != 0) ring(slot * receptors + r, post) += sum[r];
  }
};

template <class Mem>
struct PoissonFlagFunctor {
  Kokkos::View<int*, Mem> flags;
  int first = 0;  // flag index of source 0 (= neurons)
  double probability = 0;  // rate * dt
  std::uint64_t seed = 0;
  int step = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const int s) const {
    flags(first + s) = draw_uniform(seed, Purpose::Poisson, static_cast<std::uint64_t>(s),
                                    static_cast<std::uint64_t>(step)) < probability ? 1 : 0;
  }
};

}  // namespace kbrain::spiking
