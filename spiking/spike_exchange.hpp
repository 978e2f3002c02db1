#pragma once
// Per-step spike handling on a backend:
//  - SpikeCompactFunctor: parallel_scan over the spike flags -> the step's spike list, in ascending index order
//    (deterministic; no atomics);
//  - SpikeDeliverFunctor: one team per spike, its threads over the outgoing synapses, each adding its fixed-point
//    weight into the target's ring slot for step + 1 + delay (integer atomics: order-independent sums);
//  - SpikeLogFunctor: appends the step's list to a device log of (step, neuron) that the host drains in batches;
//  - PoissonFlagFunctor: source s spikes at step n when uniform(seed, s, n) < rate * dt.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "spiking/counter_draws.hpp"
#include "spiking/device_synapses.hpp"

namespace kbrain::spiking {

template <class Mem>
struct SpikeCompactFunctor {
  Kokkos::View<const int*, Mem> flags;
  Kokkos::View<int*, Mem> list;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, int& offset, const bool final) const {
    if (flags(i)) {
      if (final) list(offset) = i;
      ++offset;
    }
  }
};

template <class Exec>
struct SpikeDeliverFunctor {
  using Mem = typename Exec::memory_space;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  DeviceSynapses<Mem> syn;
  Kokkos::View<const int*, Mem> list;
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring;  // (slot * receptors + receptor, neuron)
  int step = 0, slots = 1, receptors = 2;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int pre = list(team.league_rank());
    const std::int64_t begin = syn.offsets(pre), end = syn.offsets(pre + 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const std::int64_t k) {
      const int dr = syn.delay_receptor(k);
      const int slot = (step + 1 + (dr >> 1)) % slots;
      Kokkos::atomic_add(&ring(slot * receptors + (dr & 1), syn.target(k)), static_cast<long long>(syn.weight(k)));
    });
  }
};

template <class Mem>
struct SpikeLogFunctor {
  Kokkos::View<const int*, Mem> list;
  Kokkos::View<int*, Mem> log;  // pairs (step, neuron)
  int offset = 0, step = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const {
    log(2 * (offset + k)) = step;
    log(2 * (offset + k) + 1) = list(k);
  }
};

// Number of list entries below `limit` (neuron spikes, before the Poisson sources in the ascending list).
template <class Mem>
struct CountBelowFunctor {
  Kokkos::View<const int*, Mem> list;
  int limit = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const int k, int& sum) const { sum += list(k) < limit ? 1 : 0; }
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
