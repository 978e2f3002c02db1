#pragma once
// Per-step spike handling on a backend, without a host synchronisation per step. The step index comes from the
// backend's step clock (spiking/step_clock.hpp), so a step's launches do not change from step to step:
//  - SpikeSink: where a neuron kernel (and the Poisson sources' kernel) puts its spikes. On GPUs (append) each
//    spike takes its list slot, and a neuron's spike its log slot, by an atomic increment inside the neuron kernel
//    itself (no pass over flags; the list is unordered: delivery sums integers, so the order does not matter, and
//    the host sorts the drained log). On CPUs (flags) it writes a flag per neuron for SpikeCompactFunctor;
//  - SpikeCompactFunctor: parallel_scan over the spike flags -> the step's spike list, in ascending index order
//    (deterministic; no atomics). Its final pass also stores the step's spike counts in the device counters and
//    appends the neuron spikes to the device spike log;
//  - advance_step: one thread moves the log and total counters and the step clock on, inside the step's last
//    kernel (a delivery functor), or in StepAdvanceFunctor when no delivery runs;
//  - SpikeDeliverFunctor: a fixed league of teams loops over the step's spikes (the count is read on the device),
//    the team's threads over the outgoing synapses, each adding its fixed-point weight into the target's ring slot
//    for step + 1 + delay (integer atomics, native 64-bit: order-independent sums); SpikeDeliverWarpsFunctor is the
//    same with a warp for a team (GPUs);
//  - DenseDeliverFunctor: for dense neuron->neuron storage, one thread per target sums the weight-matrix column
//    entries of the step's spiking neurons (coalesced row reads, no atomics, fixed order);
//  - PoissonSourcesFunctor: source s spikes at step n when uniform(seed, s, n) < rate * dt.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "spiking/counter_draws.hpp"
#include "spiking/device_synapses.hpp"
#include "spiking/step_clock.hpp"

namespace kbrain::spiking {

// Slots of the device counter array of a network simulation. The step's counts alternate between two pairs by
// step parity (StepSpikes + 2 * (step & 1), +1 for the neuron spikes); advance_step zeroes the next step's pair,
// so a compaction that accumulates (rather than stores) its counts needs no extra launch.
enum SpikeCounter : int { LogUsed = 0, TotalSpikes = 1, LogOverflow = 2, StepSpikes = 3, StepNeuronSpikes = 4,
                          kSpikeCounters = 7 };
KOKKOS_INLINE_FUNCTION int step_counter(int step) { return StepSpikes + 2 * (step & 1); }

template <class Mem>
struct SpikeSink {
  Kokkos::View<int*, Mem> flags;  // flags: 1 if index i spiked this step
  Kokkos::View<int*, Mem> list;   // append: the step's spikes, unordered
  Kokkos::View<long long*, Mem> counters;
  Kokkos::View<int*, Mem> log;    // pairs (updates done, neuron); extent 0: no log
  long long log_capacity = 0;     // events
  int neurons = 0;                // indices below are neurons (logged), the rest Poisson sources
  bool append = false;

  KOKKOS_INLINE_FUNCTION void emit(const int i, const bool spike, const int step) const {
    if (!append) {
      flags(i) = spike ? 1 : 0;
      return;
    }
    if (spike) append_spike(i, step, step + 1);  // logged as updates done
  }
  // Append only: spike i of step `step` takes its list slot and, for a neuron, its log slot as (logged, i).
  KOKKOS_INLINE_FUNCTION void append_spike(const int i, const int step, const int logged) const {
    const int slot = step_counter(step);
    list(kx::atomic_increment_i64(&counters(slot))) = i;
    if (i < neurons) {
      const long long at = counters(LogUsed) + kx::atomic_increment_i64(&counters(slot + 1));
      if (log_capacity > 0 && at < log_capacity) {
        log(2 * at) = logged;
        log(2 * at + 1) = i;
      }
    }
  }
};

template <class Mem>
struct SpikeCompactFunctor {
  Kokkos::View<const int*, Mem> flags;
  Kokkos::View<int*, Mem> list;
  Kokkos::View<long long*, Mem> counters;
  Kokkos::View<int*, Mem> log;  // pairs (step, neuron); extent 0: no log
  long long log_capacity = 0;   // events
  int size = 0;                 // flags to scan (neurons + sources)
  int neurons = 0;
  StepClock<Mem> clock;

  KOKKOS_INLINE_FUNCTION void operator()(const int i, int& offset, const bool final) const {
    const int f = flags(i);
    if (final) {
      const int step = clock.later_kernel_step();
      const int slot = step_counter(step);
      if (f) {
        list(offset) = i;
        if (i < neurons && log_capacity > 0) {
          const long long at = counters(LogUsed) + offset;
          if (at < log_capacity) {
            log(2 * at) = step + 1;  // logged as updates done
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

// SpikeCompactFunctor over blocks of kCompactBlock flags per index (host backends): the same list, counts and log,
// with the per-flag work a plain loop (the non-final pass of a parallel scan is a vectorisable sum).
inline constexpr int kCompactBlock = 256;
template <class Mem>
struct SpikeCompactBlocksFunctor {
  SpikeCompactFunctor<Mem> f;

  void operator()(const int block, int& offset, const bool final) const {
    const int b = block * kCompactBlock;
    const int e = f.size - b < kCompactBlock ? f.size : b + kCompactBlock;
    const int* const flags = f.flags.data();
    if (!final) {
      int count = 0;
#pragma omp simd reduction(+ : count)
      for (int i = b; i < e; ++i) count += flags[i];
      offset += count;
      return;
    }
    const int step = f.clock.later_kernel_step();
    const int slot = step_counter(step);
    const bool logged = f.log_capacity > 0;
    const long long log_start = logged ? f.counters(LogUsed) : 0;
    int at = offset;
    const auto append = [&](const int i) {
      f.list(at) = i;
      if (logged && i < f.neurons && log_start + at < f.log_capacity) {
        f.log(2 * (log_start + at)) = step + 1;  // logged as updates done
        f.log(2 * (log_start + at) + 1) = i;
      }
      ++at;
    };
    // Most flags are 0: eight at a time are tested with one vector compare, and only a group with a spike is walked.
    int i = b;
    for (; i + 8 <= e; i += 8) {
      int any = 0;
      for (int j = 0; j < 8; ++j) any |= flags[i + j];
      if (any == 0) continue;
      for (int j = 0; j < 8; ++j)
        if (flags[i + j]) append(i + j);
    }
    for (; i < e; ++i)
      if (flags[i]) append(i);
    // the counts: the list's end after the block that holds the last neuron, and after the last block
    if (b < f.neurons && f.neurons <= e) {
      int neuron_end = offset;
      for (int i = b; i < f.neurons; ++i) neuron_end += flags[i];
      f.counters(slot + 1) = neuron_end;
    }
    if (e == f.size) f.counters(slot) = at;
    offset = at;
  }
};

// The step's bookkeeping, by one thread of its last kernel: zero the next step's count pair, add the step's
// spikes to the total and its neuron spikes to the log's fill, and move the clock to the next step.
template <class Mem>
KOKKOS_INLINE_FUNCTION void advance_step(const Kokkos::View<long long*, Mem>& counters, const long long log_capacity,
                                         const StepClock<Mem>& clock) {
  const int slot = step_counter(clock.later_kernel_step());
  const int next = slot == StepSpikes ? StepSpikes + 2 : StepSpikes;
  counters(next) = 0;
  counters(next + 1) = 0;
  counters(TotalSpikes) += counters(slot);
  if (log_capacity > 0) {
    const long long used = counters(LogUsed) + counters(slot + 1);
    if (used > log_capacity) counters(LogOverflow) = 1;
    counters(LogUsed) = used > log_capacity ? log_capacity : used;
  }
  clock.advance();
}

template <class Mem>
struct StepAdvanceFunctor {
  Kokkos::View<long long*, Mem> counters;
  long long log_capacity = 0;
  StepClock<Mem> clock;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const { advance_step(counters, log_capacity, clock); }
};

// Adds synapse k's fixed-point weight into its target's ring slot for step + 1 + delay; `first` is the slot of
// step + 1 (a delay is below the slot count, so one subtraction wraps it). Native 64-bit integer atomics (the sums
// do not depend on the order), or a plain add where one thread delivers everything (exclusive).
template <class Mem>
KOKKOS_INLINE_FUNCTION void deliver_synapse(const DeviceSynapses<Mem>& syn,
                                            const Kokkos::View<long long**, Kokkos::LayoutRight, Mem>& ring,
                                            const int first, const int slots, const int receptors,
                                            const std::int64_t k, const bool exclusive = false) {
  const int dr = syn.delay_receptor(k);
  int slot = first + (dr >> 1);
  if (slot >= slots) slot -= slots;
  long long& sum = ring(slot * receptors + (dr & 1), syn.target(k));
  const long long w = static_cast<long long>(syn.weight(k));
  if (exclusive)
    sum += w;
  else
    kx::atomic_add_i64(&sum, w);
}

template <class Exec>
struct SpikeDeliverFunctor {
  using Mem = typename Exec::memory_space;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  DeviceSynapses<Mem> syn;
  Kokkos::View<const int*, Mem> list;
  Kokkos::View<long long*, Mem> counters;  // counters(step_counter(step)): entries of list
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring;  // (slot * receptors + receptor, neuron)
  StepClock<Mem> clock;
  int slots = 1, receptors = 2;
  bool last_of_step = false;  // the step's last kernel: one thread runs advance_step
  long long log_capacity = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int step = clock.later_kernel_step();
    if (last_of_step && team.league_rank() == 0 && team.team_rank() == 0) advance_step(counters, log_capacity, clock);
    const long long count = counters(step_counter(step));
    const int first = (step + 1) % slots;
    // one thread in all (Serial, or one OpenMP thread): plain adds
    const bool exclusive = team.league_size() == 1 && team.team_size() == 1;
    for (long long s = team.league_rank(); s < count; s += team.league_size()) {
      const int pre = list(s);
      const std::int64_t begin = syn.offsets(pre), end = syn.offsets(pre + 1);
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const std::int64_t k) {
        deliver_synapse(syn, ring, first, slots, receptors, k, exclusive);
      });
    }
  }
};

// The GPU form of SpikeDeliverFunctor: groups of `group` warps (32 consecutive indices each) take the step's spikes
// in turn, a group's lanes the spike's synapses (lane l of warp g of the group: synapses l + 32 g, then every 32
// group-th). A plain f(i) functor, so that it can go through the backend's chained launch (the step's kernels then
// overlap each other's launch), and with no team scratch or team size to choose. Groups of several warps are for
// long rows and few spikes (PD14: about 25 spikes of 3900 synapses a step): one warp per spike would walk a row in
// a hundred dependent iterations while the GPU idles. Integer sums: any split gives the same bits.
template <class Mem>
struct SpikeDeliverWarpsFunctor {
  DeviceSynapses<Mem> syn;
  Kokkos::View<const int*, Mem> list;
  Kokkos::View<long long*, Mem> counters;  // counters(step_counter(step)): entries of list
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring;  // (slot * receptors + receptor, neuron)
  StepClock<Mem> clock;
  int slots = 1, receptors = 2;
  bool last_of_step = false;  // the step's last kernel: index 0 runs advance_step
  long long log_capacity = 0;
  int warps = 1;  // indices / 32, a multiple of group
  int group = 1;  // warps per spike

  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const int step = clock.later_kernel_step();
    if (last_of_step && i == 0) advance_step(counters, log_capacity, clock);
    const long long count = counters(step_counter(step));
    const int warp = i >> 5, lane = (warp % group) * 32 + (i & 31), stride = 32 * group;
    const int first = (step + 1) % slots;
    for (long long s = warp / group; s < count; s += warps / group) {
      const int pre = list(s);
      const std::int64_t end = syn.offsets(pre + 1);
      for (std::int64_t k = syn.offsets(pre) + lane; k < end; k += stride)
        deliver_synapse(syn, ring, first, slots, receptors, k);
    }
  }
};

template <class Mem>
struct DenseDeliverFunctor {
  DenseSynapses<Mem> dense;
  Kokkos::View<const int*, Mem> list;
  Kokkos::View<long long*, Mem> counters;  // counters(step_counter(step)): entries of list; +1: how many are neurons
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring;
  StepClock<Mem> clock;
  int slots = 1, receptors = 2;
  bool last_of_step = false;  // the step's last kernel: thread 0 runs advance_step
  long long log_capacity = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const int post) const {
    const int step = clock.later_kernel_step();
    if (last_of_step && post == 0) advance_step(counters, log_capacity, clock);
    const int counter = step_counter(step);
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
struct PoissonSourcesFunctor {
  SpikeSink<Mem> sink;
  int first = 0;           // index of source 0 (= neurons)
  double probability = 0;  // rate * dt
  std::uint64_t seed = 0;
  StepClock<Mem> clock;
  KOKKOS_INLINE_FUNCTION void operator()(const int s) const {
    const int step = clock.later_kernel_step();
    sink.emit(first + s,
              draw_uniform(seed, Purpose::Poisson, static_cast<std::uint64_t>(s), static_cast<std::uint64_t>(step)) <
                  probability,
              step);
  }
};

}  // namespace kbrain::spiking
