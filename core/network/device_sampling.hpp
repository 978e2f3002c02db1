#pragma once
// Integer-only sampling primitives for the network generators, usable inside Kokkos kernels on every backend:
// a counter-RNG draw stream, exact bounded integers, geometric skips from threshold tables, the conductance grid,
// and an in-place heap sort of one CSR segment. No floating-point decision is made on the device, so results are
// bit-identical between CPU and GPU. See docs/network-generators.md.
#include <cstdint>

#include <Kokkos_Core.hpp>
#include <Random123/philox.h>

#include "core/network/random_network.hpp"

namespace kbrain::netgen {

// Stream ids: what a draw is for, and which cell draws it (a cell's draws depend only on (seed, cell, index)).
enum : std::uint64_t { kTopologyStream = 0, kConductanceStream = 1 };
KOKKOS_INLINE_FUNCTION std::uint64_t stream_id(std::uint64_t purpose, std::int64_t cell) {
  return (purpose << 32) | static_cast<std::uint64_t>(cell);
}

KOKKOS_INLINE_FUNCTION std::uint64_t mulhi64(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

// Draw k of (seed, stream) = 64-bit half (k & 1) of Philox4x32-10 block k >> 1.
struct DrawStream {
  std::uint64_t seed = 0, stream = 0, next_index = 0;
  std::uint64_t spare = 0;

  KOKKOS_INLINE_FUNCTION DrawStream(std::uint64_t seed_, std::uint64_t stream_) : seed(seed_), stream(stream_) {}

  KOKKOS_INLINE_FUNCTION std::uint64_t next() {
    const std::uint64_t k = next_index++;
    if (k & 1) return spare;
    const std::uint64_t block = k >> 1;
    r123::Philox4x32 rng;
    r123::Philox4x32::ctr_type ctr = {{static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32),
                                       static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)}};
    r123::Philox4x32::key_type key = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
    const auto out = rng(ctr, key);
    spare = (static_cast<std::uint64_t>(out[3]) << 32) | out[2];
    return (static_cast<std::uint64_t>(out[1]) << 32) | out[0];
  }

  // Exactly uniform in [0, m), m >= 1 (Lemire's multiply-and-reject).
  KOKKOS_INLINE_FUNCTION std::uint64_t below(std::uint64_t m) {
    std::uint64_t u = next();
    std::uint64_t low = u * m;
    if (low < m) {
      const std::uint64_t threshold = (0 - m) % m;
      while (low < threshold) {
        u = next();
        low = u * m;
      }
    }
    return mulhi64(u, m);
  }
};

// Geometric skip G (failures before the next success of a Bernoulli(p) sweep) from the sampler's digit tables.
template <class TableView, class SamplerView>
KOKKOS_INLINE_FUNCTION std::uint64_t geometric_skip(const TableView& thresholds, const SamplerView& samplers,
                                                    int sampler, DrawStream& draws) {
  constexpr int L = RandomNetworkTables::kLevelSize;
  const GeometricSampler s = samplers(sampler);
  std::uint64_t g = 0, place = 1;
  for (int k = 0; k < s.levels; ++k) {
    const std::uint64_t u = draws.next();
    const std::int64_t base = static_cast<std::int64_t>(s.first) + static_cast<std::int64_t>(k) * L;
    int digit = 0;  // largest j with u < thresholds[j] (thresholds decrease in j); branch-free search
    if (u < thresholds(base + 1))
      for (int step = L / 2; step >= 1; step >>= 1) digit += step & -static_cast<int>(u < thresholds(base + digit + step));
    g += place * static_cast<std::uint64_t>(digit);
    place *= L;
  }
  return g;
}

// Never selects anything when the sampler has no levels (p == 0).
template <class SamplerView>
KOKKOS_INLINE_FUNCTION bool sampler_active(const SamplerView& samplers, int sampler) {
  return samplers(sampler).levels > 0;
}

// Conductance of a cell's junction number `ordinal`: a point of the grid low_fx + [0, span) times 2^-e
// (exact doubles, the same bits everywhere).
KOKKOS_INLINE_FUNCTION double draw_conductance(std::uint64_t seed, std::int64_t cell, std::uint64_t ordinal,
                                               std::uint64_t low_fx, std::uint64_t span_fx, double scale) {
  DrawStream d(seed, stream_id(kConductanceStream, cell));
  d.next_index = ordinal & ~std::uint64_t{1};  // start of the Philox block that holds draw `ordinal`
  std::uint64_t u = d.next();
  if (ordinal & 1) u = d.next();
  return static_cast<double>(low_fx + mulhi64(span_fx, u)) * scale;
}

// Sorts keys[begin, begin + n) ascending, moving vals along when with_vals. In place, O(n log n), no recursion.
template <class KeyView, class ValView>
KOKKOS_INLINE_FUNCTION void heap_sort_segment(const KeyView& keys, const ValView& vals, bool with_vals,
                                              std::int64_t begin, std::int64_t n) {
  auto swap_at = [&](std::int64_t a, std::int64_t b) {
    const auto k = keys(begin + a);
    keys(begin + a) = keys(begin + b);
    keys(begin + b) = k;
    if (with_vals) {
      const auto v = vals(begin + a);
      vals(begin + a) = vals(begin + b);
      vals(begin + b) = v;
    }
  };
  auto sift_down = [&](std::int64_t root, std::int64_t end) {
    while (2 * root + 1 < end) {
      std::int64_t child = 2 * root + 1;
      if (child + 1 < end && keys(begin + child) < keys(begin + child + 1)) ++child;
      if (!(keys(begin + root) < keys(begin + child))) return;
      swap_at(root, child);
      root = child;
    }
  };
  for (std::int64_t start = n / 2 - 1; start >= 0; --start) sift_down(start, n);
  for (std::int64_t end = n - 1; end > 0; --end) {
    swap_at(0, end);
    sift_down(0, end);
  }
}

}  // namespace kbrain::netgen
