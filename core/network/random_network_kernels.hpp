#pragma once
// Kokkos functors of the random network generators (one thread per target cell). The count pass and the fill
// pass run the same code and draw the same counter-RNG sequence keyed on (seed, cell, draw index); the fill pass
// also writes. Driver: core/network/generate_network.hpp. Algorithms: docs/network-generators.md.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "core/network/device_sampling.hpp"
#include "core/network/random_network.hpp"

namespace kbrain::netgen {

// RandomNetworkTables on the execution space's memory.
template <class Mem>
struct DeviceTables {
  Kokkos::View<const std::uint64_t*, Mem> geometric;
  Kokkos::View<const GeometricSampler*, Mem> samplers;
  Kokkos::View<const std::int16_t*, Mem> dx, dy, dz;
  Kokkos::View<const std::uint64_t*, Mem> thin;
  Kokkos::View<const std::int64_t*, Mem> band_begin, band_end;
  Kokkos::View<const std::int32_t*, Mem> band_sampler;
  bool gaussian = false, symmetric = false, g_range = false;
  std::int64_t cells = 0, side = 0, exact_count = 0;
  std::int32_t uniform_sampler = -1;
  std::uint64_t seed = 0, g_low_fx = 0, g_span_fx = 0;
  double g_scale = 0;
};

// Per-cell Bernoulli sweeps: uniform mode bernoulli (candidates: every other cell, or only higher ids when
// symmetric) and gaussian3d (bands of lattice offsets, thinned). Count pass: offsets(i) = count.
// Fill pass: writes the cell's list at offsets(i) in ascending source order (gaussian: sorted per cell).
template <class Mem, class Real, bool Fill>
struct SweepFunctor {
  DeviceTables<Mem> t;
  Kokkos::View<std::int64_t*, Mem> offsets;
  Kokkos::View<std::int32_t*, Mem> sources;
  Kokkos::View<Real*, Mem> g;

  KOKKOS_INLINE_FUNCTION void emit(std::int64_t cell, std::int64_t base, std::int64_t n, std::int64_t src) const {
    if (!Fill || (capacity >= 0 && n >= capacity)) return;
    sources(base + n) = static_cast<std::int32_t>(src);
    if (t.g_range)
      g(base + n) = static_cast<Real>(draw_conductance(t.seed, cell, static_cast<std::uint64_t>(n), t.g_low_fx,
                                                       t.g_span_fx, t.g_scale));
  }

  KOKKOS_INLINE_FUNCTION std::int64_t uniform(std::int64_t i, std::int64_t base, DrawStream& d) const {
    std::int64_t n = 0;
    if (!sampler_active(t.samplers, t.uniform_sampler)) return 0;
    const std::int64_t lo = t.symmetric ? i + 1 : 0;
    const std::uint64_t m = static_cast<std::uint64_t>(t.cells - lo);
    std::uint64_t next = 0;  // first candidate not yet passed
    while (true) {
      const std::uint64_t skip = geometric_skip(t.geometric, t.samplers, t.uniform_sampler, d);
      if (skip >= m - next) break;
      const std::int64_t c = lo + static_cast<std::int64_t>(next + skip);
      next += skip + 1;
      if (c != i) emit(i, base, n++, c);
      if (next >= m) break;
    }
    return n;
  }

  KOKKOS_INLINE_FUNCTION std::int64_t gaussian(std::int64_t i, std::int64_t base, DrawStream& d) const {
    const std::int64_t b = t.side, b2 = b * b;
    const std::int64_t x = i / b2, y = (i % b2) / b, z = i % b;
    std::int64_t n = 0;
    for (std::size_t band = 0; band < t.band_begin.extent(0); ++band) {
      const std::int64_t first = t.band_begin(band);
      const std::uint64_t m = static_cast<std::uint64_t>(t.band_end(band) - first);
      const int sampler = t.band_sampler(band);
      std::uint64_t next = 0;
      while (next < m) {
        const std::uint64_t skip = geometric_skip(t.geometric, t.samplers, sampler, d);
        if (skip >= m - next) break;
        const std::int64_t k = first + static_cast<std::int64_t>(next + skip);
        next += skip + 1;
        const std::int64_t nx = x + t.dx(k), ny = y + t.dy(k), nz = z + t.dz(k);
        if (nx < 0 || ny < 0 || nz < 0 || nx >= b || ny >= b || nz >= b) continue;
        const std::int64_t j = nx * b2 + ny * b + nz;
        if (j >= t.cells) continue;
        if ((d.next() >> 1) < t.thin(k)) emit(i, base, n++, j);
      }
    }
    if (Fill && sort_in_place && (capacity < 0 || n <= capacity)) heap_sort_segment(sources, g, t.g_range, base, n);
    return n;
  }

  // Row r is cell targets(r) (all cells, r = cell, when targets is empty: a subset of rows is generated for one
  // MPI rank; each row is the same function of (seed, cell) either way).
  Kokkos::View<const std::int64_t*, Mem> targets;
  // Fill pass into a buffer of `capacity` entries from `base` (host single pass, generate_network.hpp): emits past
  // it are dropped, the count is still returned, and the caller regrows and repeats the row. -1: no limit.
  std::int64_t capacity = -1;
  // gaussian3d fill pass: heap-sort each row here (host single pass), or leave it for sort_rows (two-pass sweep).
  bool sort_in_place = true;

  // Row r (cell targets(r), or r), written from `base` when Fill; returns its length.
  KOKKOS_INLINE_FUNCTION std::int64_t sweep_row(const std::int64_t r, const std::int64_t base) const {
    const std::int64_t i = targets.extent(0) != 0 ? targets(r) : r;
    DrawStream d(t.seed, stream_id(kTopologyStream, i));
    return t.gaussian ? gaussian(i, base, d) : uniform(i, base, d);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const {
    const std::int64_t n = sweep_row(r, Fill ? offsets(r) : 0);
    if (!Fill) offsets(r) = n;
  }
};

// uniform, mode exact: a uniformly random K-subset of the N - 1 other cells. Draws K candidates (with
// replacement) into the cell's own segment, sorts them and drops repeats; then draws one at a time, inserting each
// value not yet present (binary search + shift), until K distinct remain. The result is the set of the first K
// distinct values of an i.i.d. uniform sequence, i.e. exactly uniform over K-subsets; ascending.
template <class Mem, class Real>
struct ExactFillFunctor {
  DeviceTables<Mem> t;
  Kokkos::View<std::int32_t*, Mem> sources;
  Kokkos::View<Real*, Mem> g;

  Kokkos::View<const std::int64_t*, Mem> targets;  // row r is cell targets(r); empty => r
  // 0: the whole row here (heap sort in place). 1: only the K draws; 2: the rest, on rows sorted in between
  // (sort_rows: exact_fill in generate_network.hpp); phase 2 repeats the K draws to reach the same stream position.
  int phase = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const {
    const std::int64_t i = targets.extent(0) != 0 ? targets(r) : r;
    const std::int64_t k_total = t.exact_count, base = r * k_total;
    const std::uint64_t others = static_cast<std::uint64_t>(t.cells - 1);
    DrawStream d(t.seed, stream_id(kTopologyStream, i));
    for (std::int64_t k = 0; k < k_total; ++k) {
      const auto v = static_cast<std::int32_t>(d.below(others));
      if (phase != 2) sources(base + k) = v;
    }
    if (phase == 1) return;
    if (phase == 0) heap_sort_segment(sources, g, false, base, k_total);
    std::int64_t unique = k_total > 0 ? 1 : 0;
    for (std::int64_t k = 1; k < k_total; ++k)
      if (sources(base + k) != sources(base + unique - 1)) sources(base + unique++) = sources(base + k);
    while (unique < k_total) {
      const auto v = static_cast<std::int32_t>(d.below(others));
      std::int64_t lo = 0, hi = unique;
      while (lo < hi) {
        const std::int64_t mid = (lo + hi) / 2;
        if (sources(base + mid) < v) lo = mid + 1;
        else hi = mid;
      }
      if (lo < unique && sources(base + lo) == v) continue;
      for (std::int64_t k = unique; k > lo; --k) sources(base + k) = sources(base + k - 1);
      sources(base + lo) = v;
      ++unique;
    }
    for (std::int64_t k = 0; k < k_total; ++k) {
      const std::int32_t c = sources(base + k);
      if (c >= i) sources(base + k) = c + 1;  // candidate index -> cell id, skipping the cell itself
      if (t.g_range)
        g(base + k) = static_cast<Real>(draw_conductance(t.seed, i, static_cast<std::uint64_t>(k), t.g_low_fx,
                                                         t.g_span_fx, t.g_scale));
    }
  }
};

// Exclusive scan in place: v(i) = sum of the old v(0..i-1); v(n) = total (v has n + 1 entries).
template <class Mem>
struct ExclusiveScan {
  Kokkos::View<std::int64_t*, Mem> v;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, std::int64_t& sum, const bool final) const {
    const std::int64_t c = v(i);
    if (final) v(i) = sum;
    sum += c;
  }
};

template <class Mem>
struct EqualSegments {  // offsets(i) = i * k
  Kokkos::View<std::int64_t*, Mem> offsets;
  std::int64_t k = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { offsets(i) = i * k; }
};

template <class Mem>
struct SegmentLengths {  // lengths(i) = offsets(i + 1) - offsets(i)
  Kokkos::View<const std::int64_t*, Mem> offsets;
  Kokkos::View<std::int64_t*, Mem> lengths;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { lengths(i) = offsets(i + 1) - offsets(i); }
};

// ---- symmetric: the upper network U (partners with higher ids) -> U + U^T, each cell's list ascending.
template <class Mem>
struct SymmetricDegree {  // degree(i) = |U(i)| (pre-set) + #{j : i in U(j)}
  Kokkos::View<const std::int64_t*, Mem> up_offsets;
  Kokkos::View<const std::int32_t*, Mem> up_sources;
  Kokkos::View<std::int64_t*, Mem> degree;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    for (std::int64_t k = up_offsets(i); k < up_offsets(i + 1); ++k)
      kx::atomic_add_i64(&degree(up_sources(k)), std::int64_t(1));
  }
};

template <class Mem, class Real>
struct SymmetricFill {  // lower part by scatter (atomic cursor), upper part copied to the end of the segment
  Kokkos::View<const std::int64_t*, Mem> up_offsets;
  Kokkos::View<const std::int32_t*, Mem> up_sources;
  Kokkos::View<const Real*, Mem> up_g;
  Kokkos::View<const std::int64_t*, Mem> offsets;
  Kokkos::View<std::int64_t*, Mem> cursor;  // = offsets(i) on entry
  Kokkos::View<std::int32_t*, Mem> sources;
  Kokkos::View<Real*, Mem> g;
  bool g_range = false;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t b = up_offsets(i), n = up_offsets(i + 1) - b, upper_start = offsets(i + 1) - n;
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int32_t j = up_sources(b + k);
      const std::int64_t slot = kx::atomic_increment_i64(&cursor(j));
      sources(slot) = static_cast<std::int32_t>(i);
      sources(upper_start + k) = j;
      if (g_range) {
        g(slot) = up_g(b + k);
        g(upper_start + k) = up_g(b + k);
      }
    }
  }
};

// |lower part of row i| = row length - |U(i)|
template <class Offsets>
KOKKOS_INLINE_FUNCTION std::int64_t lower_part_length(const Offsets& up_offsets, const Offsets& offsets,
                                                      const std::int64_t i) {
  return offsets(i + 1) - offsets(i) - (up_offsets(i + 1) - up_offsets(i));
}

template <class Mem>
struct LowerPartLengths {  // lengths(i) = lower_part_length(i)
  Kokkos::View<const std::int64_t*, Mem> up_offsets;
  Kokkos::View<const std::int64_t*, Mem> offsets;
  Kokkos::View<std::int64_t*, Mem> lengths;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    lengths(i) = lower_part_length(up_offsets, offsets, i);
  }
};

template <class Mem, class Real>
struct SortLowerPart {  // the scattered lower part [offsets(i), offsets(i+1) - |U(i)|) in source order
  Kokkos::View<const std::int64_t*, Mem> up_offsets;
  Kokkos::View<const std::int64_t*, Mem> offsets;
  Kokkos::View<std::int32_t*, Mem> sources;
  Kokkos::View<Real*, Mem> g;
  bool g_range = false;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    heap_sort_segment(sources, g, g_range, offsets(i), lower_part_length(up_offsets, offsets, i));
  }
};

}  // namespace kbrain::netgen
