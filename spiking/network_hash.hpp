#pragma once
// A hash of a network's topology that composes over parts (spiking/network_generation.hpp, TargetRange): the sum,
// mod 2^64, of a 64-bit mix of each synapse's (pre, target), with the synapse count. A sum is order-free, so the
// whole network's hash is the sum of its parts' hashes whatever the split and whichever rank holds which range (an
// MPI_Allreduce with MPI_SUM combines them); a synapse lost, duplicated in two parts or moved to another target
// changes the sum (unless mixes collide, which a good mix makes as unlikely as a 64-bit hash collision).
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "spiking/network_generation.hpp"

namespace kbrain::spiking {

struct NetworkHash {
  std::uint64_t sum = 0;
  std::int64_t synapses = 0;
  NetworkHash& operator+=(const NetworkHash& o) {
    sum += o.sum;
    synapses += o.synapses;
    return *this;
  }
  friend bool operator==(const NetworkHash& a, const NetworkHash& b) {
    return a.sum == b.sum && a.synapses == b.synapses;
  }
  friend bool operator!=(const NetworkHash& a, const NetworkHash& b) { return !(a == b); }
};

// splitmix64's finaliser, applied to pre and then to (mix(pre) + target): pre and target never alias.
KOKKOS_INLINE_FUNCTION std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
KOKKOS_INLINE_FUNCTION std::uint64_t synapse_mix(std::int64_t pre, std::int32_t target) {
  return mix64(mix64(static_cast<std::uint64_t>(pre) + 0x9E3779B97F4A7C15ull) + static_cast<std::uint32_t>(target));
}

namespace detail {
template <class Mem>
struct RowMixSum {
  Kokkos::View<const std::int64_t*, Mem> offsets;
  Kokkos::View<const std::int32_t*, Mem> target;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t pre, std::uint64_t& sum) const {
    for (std::int64_t k = offsets(pre); k < offsets(pre + 1); ++k) sum += synapse_mix(pre, target(k));
  }
};
}  // namespace detail

// The hash of the rows held (a part, or the whole network), computed on the backend that holds them.
template <class Exec>
NetworkHash network_hash(const SynapseRows<typename Exec::memory_space>& rows) {
  using Mem = typename Exec::memory_space;
  NetworkHash h;
  const std::int64_t pre_count = static_cast<std::int64_t>(rows.offsets.extent(0)) - 1;
  if (pre_count > 0)
    Kokkos::parallel_reduce("kbrain::spiking::network_hash", Kokkos::RangePolicy<Exec>(0, pre_count),
                            detail::RowMixSum<Mem>{rows.offsets, rows.target}, h.sum);  // unsigned: wraps
  h.synapses = rows.synapses();
  return h;
}

}  // namespace kbrain::spiking
