#pragma once
// The topology of a random spiking network, generated on the simulating backend: outgoing CSR over presynaptic
// index (neurons, then Poisson sources), targets ascending within each row. The result is a function of the spec
// only: the same rows on Serial, OpenMP and CUDA (tests/test_network_generation.cpp checks it on every backend).
//   fixed_probability / all_to_all rows, and Poisson sources' rows: a Bernoulli sweep over the targets per
//     presynaptic row, by integer geometric skips (core/network/device_sampling.hpp: no floating-point decision, so
//     no backend can round differently); count pass, exclusive scan, fill pass.
//   fixed_in_degree: each neuron draws its distinct presynaptic neurons (draw k: floor(u_k * neurons), keyed on
//     (seed, post, k); self and repeats skipped), then the choices are transposed into rows (atomic counts, scan,
//     atomic cursors) and each row is sorted, which makes the order independent of the atomics (on the host: a
//     bucket sort in post order, no atomics and no sort).
// Repeats are found with a bitmap on the host; on GPUs, where a bitmap of N bits per thread does not fit, a thread
// searches its own choices (column-major, so a warp's reads are coalesced): O(K^2) per neuron, fine for the
// in-degrees of the studies (docs/performance.md has the time at K = 200), slow for K in the thousands.
// A part of the network: the synapses whose targets lie in [first, last), the part a rank owning those neurons holds
// (generate_rows with a TargetRange; the whole network is the range [0, neurons)). The draws are the whole network's,
// so the parts of any split are exactly the whole network's rows restricted to each range. fixed_in_degree: only the
// range's neurons draw. A Bernoulli row's skips run from target 0, so a part walks each presynaptic row's sequence up
// to `last` and keeps the targets from `first` on: memory is per part, the draw work is not (a rank of K sweeps up
// to its range's end in every row).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "core/network/device_sampling.hpp"
#include "core/network/generate_network.hpp"
#include "core/network/host_pages.hpp"
#include "core/network/random_network.hpp"
#include "core/network/sort_rows.hpp"
#include "core/timing/stopwatch.hpp"
#include "spiking/network_spec.hpp"
#include "spiking/counter_draws.hpp"

namespace kbrain::spiking {

// Postsynaptic neurons [first, last).
struct TargetRange {
  std::int64_t first = 0, last = 0;
};

// Range `part` of `parts` near-equal blocks of `neurons` (the split of the MPI tests: rank r of K).
inline TargetRange target_block(std::int64_t neurons, int part, int parts) {
  return {neurons * part / parts, neurons * (part + 1) / parts};
}

template <class Mem>
struct SynapseRows {
  std::int64_t neurons = 0, sources = 0;
  TargetRange targets;                       // the part held: every target lies in it (whole network: [0, neurons))
  Kokkos::View<std::int64_t*, Mem> offsets;  // neurons + sources + 1 (every presynaptic row, empty or not)
  Kokkos::View<std::int32_t*, Mem> target;   // global indices
  std::int64_t synapses() const { return static_cast<std::int64_t>(target.extent(0)); }
};

// Seconds of each generation phase (the backend fenced after each).
struct GenerationTimes {
  double draw_s = 0;    // connectivity draws and row counts
  double fill_s = 0;    // scan, row fill (fixed in-degree: the transpose)
  double sort_s = 0;    // fixed in-degree: rows sorted
  double values_s = 0;  // weights, delays, fixed point (spiking/generated_synapses.hpp)
  double total() const { return draw_s + fill_s + sort_s + values_s; }
};

namespace detail {

template <class Mem>
struct BernoulliRows {
  Kokkos::View<const std::uint64_t*, Mem> geometric;
  Kokkos::View<const GeometricSampler*, Mem> samplers;
  Kokkos::View<std::int64_t*, Mem> offsets;  // count pass: row lengths; fill pass: row starts
  Kokkos::View<std::int32_t*, Mem> target;
  std::int64_t neurons = 0;
  std::uint64_t key = 0;
  int neuron_sampler = 0, source_sampler = 0;
  bool all_neurons = false, skip_self = true, fill = false;
  std::int64_t first = 0, last = 0;  // the targets kept

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t pre) const {
    const bool source = pre >= neurons;
    const std::int64_t base = fill ? offsets(pre) : 0;
    std::int64_t n = 0;
    auto emit = [&](std::int64_t post) {
      if (source || !skip_self || post != pre) {
        if (fill) target(base + n) = static_cast<std::int32_t>(post);
        ++n;
      }
    };
    if (!source && all_neurons) {
      for (std::int64_t post = first; post < last; ++post) emit(post);
    } else {
      const int sampler = source ? source_sampler : neuron_sampler;
      if (netgen::sampler_active(samplers, sampler)) {
        // The whole row's skip sequence from target 0, stopped at `last` (the targets beyond are not kept).
        netgen::DrawStream d(key, static_cast<std::uint64_t>(pre));
        const std::uint64_t m = static_cast<std::uint64_t>(last), keep = static_cast<std::uint64_t>(first);
        std::uint64_t next = 0;
        while (next < m) {
          const std::uint64_t skip = netgen::geometric_skip(geometric, samplers, sampler, d);
          if (skip >= m - next) break;
          if (next + skip >= keep) emit(static_cast<std::int64_t>(next + skip));
          next += skip + 1;
        }
      }
    }
    if (!fill) offsets(pre) = n;
  }
};

// choice(post, j), j < in_degree: neuron post's presynaptic neurons in draw order.
template <class Layout, class Mem>
using Choices = Kokkos::View<std::int32_t**, Layout, Mem>;

KOKKOS_INLINE_FUNCTION std::int32_t in_degree_candidate(std::uint64_t seed, std::int64_t post, std::uint64_t k,
                                                        std::int64_t neurons) {
  return static_cast<std::int32_t>(draw_uniform(seed, Purpose::Connectivity, static_cast<std::uint64_t>(post), k) *
                                   static_cast<double>(neurons));
}

// Row i of the choices is neuron first + i's (the part's neurons only).
template <class Layout, class Mem>
struct ChooseBySearch {
  Choices<Layout, Mem> choice;
  std::uint64_t seed = 0;
  std::int64_t neurons = 0, in_degree = 0, first = 0;
  bool self = false;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t post = first + i;
    std::int64_t chosen = 0;
    for (std::uint64_t k = 0; chosen < in_degree; ++k) {
      const std::int32_t pre = in_degree_candidate(seed, post, k, neurons);
      if (!self && pre == post) continue;
      bool repeat = false;
      for (std::int64_t j = 0; j < chosen && !repeat; ++j) repeat = choice(i, j) == pre;
      if (!repeat) choice(i, chosen++) = pre;
    }
  }
};

template <class Layout, class Mem>
struct CountChoices {
  Choices<Layout, Mem> choice;
  Kokkos::View<std::int64_t*, Mem> counts;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    for (std::size_t j = 0; j < choice.extent(1); ++j) kx::atomic_increment_i64(&counts(choice(i, j)));
  }
};

template <class Layout, class Mem>
struct PlaceChoices {
  Choices<Layout, Mem> choice;
  Kokkos::View<std::int64_t*, Mem> cursor;
  Kokkos::View<std::int32_t*, Mem> target;
  std::int64_t first = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    for (std::size_t j = 0; j < choice.extent(1); ++j)
      target(kx::atomic_increment_i64(&cursor(choice(i, j)))) = static_cast<std::int32_t>(first + i);
  }
};

// Host: the same choices with a bitmap per block of neurons (one pass over the draws).
template <class Exec, class Layout, class Mem>
void choose_with_bitmaps(const Choices<Layout, Mem>& choice, std::uint64_t seed, std::int64_t neurons,
                         std::int64_t in_degree, bool self, std::int64_t first) {
  const std::int64_t count = static_cast<std::int64_t>(choice.extent(0));
  if (count == 0) return;
  // A few blocks per thread (dynamic schedule balances them); each block clears one bitmap of `neurons` bits.
  const std::int64_t blocks = std::min<std::int64_t>((count + 255) / 256, 8 * kx::concurrency<Exec>());
  const std::int64_t per_block = (count + blocks - 1) / blocks;
  netgen::host_for<Exec>(blocks, [&](const std::int64_t b) {
    std::vector<std::uint64_t> taken(static_cast<std::size_t>((neurons + 63) / 64), 0);
    for (std::int64_t i = b * per_block; i < std::min(count, (b + 1) * per_block); ++i) {
      const std::int64_t post = first + i;
      std::int64_t chosen = 0;
      for (std::uint64_t k = 0; chosen < in_degree; ++k) {
        const std::int32_t pre = in_degree_candidate(seed, post, k, neurons);
        const std::uint64_t bit = std::uint64_t(1) << (pre & 63);
        if ((!self && pre == post) || (taken[pre >> 6] & bit) != 0) continue;
        taken[pre >> 6] |= bit;
        choice(i, chosen++) = pre;
      }
      for (std::int64_t j = 0; j < in_degree; ++j) taken[choice(i, j) >> 6] = 0;
    }
  });
}

// Host: transposes the choices into rows without atomics (a locked add per synapse stalls the CPU on every cache
// miss) and without writes scattered over the whole target array (each would miss the caches and, on memory not yet
// touched, fault a page): a bucket sort in two passes. A bucket is 2^shift consecutive rows whose targets take about
// 512 KiB.
//  count: each thread takes a block of the part's postsynaptic neurons in order and appends each of their choices,
//    as (post, row within its bucket), to its own run of the choice's bucket (runs bucket-major, then block), so a
//    bucket's entries are in post order; then each bucket counts its rows' lengths.
//  place: each bucket writes its entries in that order into its rows' slots, so every row comes out sorted by post;
//    the writes stay within the bucket's rows, which the caches hold.
// Memory: 6 bytes a synapse of staging from count to place (the caller frees the choices in between).
template <class Exec>
struct HostTranspose {
  using Host = Kokkos::HostSpace;
  std::int64_t neurons = 0, posts = 0, first_post = 0, blocks = 1, buckets = 1;
  int shift = 0;
  std::vector<std::int64_t> start;                // start[k * blocks + b]: block b's first entry in bucket k, + total
  Kokkos::View<std::int32_t*, Host> staged_post;  // entry s: the post
  Kokkos::View<std::uint16_t*, Host> staged_row;  // entry s: the row's index within its bucket

  // The choices (`degree` each) of posts [first, first + count) of a network of n neurons.
  HostTranspose(std::int64_t n, std::int64_t first, std::int64_t count, std::int64_t degree)
      : neurons(n), posts(count), first_post(first) {
    blocks = std::max<std::int64_t>(1, std::min<std::int64_t>(kx::concurrency<Exec>(), count));
    const double row_bytes = 4.0 * double(degree) * double(count) / double(std::max<std::int64_t>(1, n));
    while (shift < 16 && double(std::int64_t(1) << (shift + 1)) * row_bytes <= double(1 << 19)) ++shift;
    buckets = (n + (std::int64_t(1) << shift) - 1) >> shift;
  }
  std::int64_t first(std::int64_t b) const { return posts * b / blocks; }  // block b's first choice row
  std::int64_t bucket_begin(std::int64_t k) const { return start[static_cast<std::size_t>(k * blocks)]; }

  // row_lengths(pre) += choices naming pre (the rows start at 0).
  template <class Layout, class Mem>
  void count(const Choices<Layout, Mem>& choice, const Kokkos::View<std::int64_t*, Mem>& row_lengths) {
    const std::int64_t degree = static_cast<std::int64_t>(choice.extent(1));
    start.assign(static_cast<std::size_t>(buckets * blocks + 1), 0);
    netgen::host_for<Exec>(blocks, [&](const std::int64_t b) {
      std::vector<std::int64_t> c(static_cast<std::size_t>(buckets), 0);
      for (std::int64_t i = first(b); i < first(b + 1); ++i)
        for (std::int64_t j = 0; j < degree; ++j) ++c[static_cast<std::size_t>(choice(i, j) >> shift)];
      for (std::int64_t k = 0; k < buckets; ++k) start[static_cast<std::size_t>(k * blocks + b)] = c[k];
    });
    std::exclusive_scan(start.begin(), start.end(), start.begin(), std::int64_t(0));  // the last entry had no count
    const std::int64_t total = start.back();
    staged_post = Kokkos::View<std::int32_t*, Host>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "staged_post"),
                                                    total);
    staged_row = Kokkos::View<std::uint16_t*, Host>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "staged_row"),
                                                    total);
    netgen::advise_huge_pages(staged_post);
    netgen::advise_huge_pages(staged_row);
    const std::int32_t mask = (std::int32_t(1) << shift) - 1;
    netgen::host_for<Exec>(blocks, [&](const std::int64_t b) {
      std::vector<std::int64_t> cursor(static_cast<std::size_t>(buckets));
      for (std::int64_t k = 0; k < buckets; ++k) cursor[k] = start[static_cast<std::size_t>(k * blocks + b)];
      for (std::int64_t i = first(b); i < first(b + 1); ++i)
        for (std::int64_t j = 0; j < degree; ++j) {
          const std::int32_t pre = choice(i, j);
          const std::int64_t s = cursor[static_cast<std::size_t>(pre >> shift)]++;
          staged_post(s) = static_cast<std::int32_t>(first_post + i);
          staged_row(s) = static_cast<std::uint16_t>(pre & mask);
        }
    });
    netgen::host_for<Exec>(buckets, [&](const std::int64_t k) {
      const std::int64_t row0 = k << shift;
      for (std::int64_t s = bucket_begin(k); s < bucket_begin(k + 1); ++s) ++row_lengths(row0 + staged_row(s));
    });
  }

  // target(offsets(pre) + m) = the m-th post (ascending) that chose pre; frees the staging.
  template <class Mem>
  void place(const Kokkos::View<std::int64_t*, Mem>& offsets, const Kokkos::View<std::int32_t*, Mem>& target) {
    netgen::host_for<Exec>(buckets, [&](const std::int64_t k) {
      const std::int64_t row0 = k << shift, rows = std::min<std::int64_t>(std::int64_t(1) << shift, neurons - row0);
      std::vector<std::int64_t> cursor(static_cast<std::size_t>(rows));
      for (std::int64_t r = 0; r < rows; ++r) cursor[r] = offsets(row0 + r);
      for (std::int64_t s = bucket_begin(k); s < bucket_begin(k + 1); ++s)
        target(cursor[staged_row(s)]++) = staged_post(s);
    });
    staged_post = {};
    staged_row = {};
  }
};

}  // namespace detail

// The part of the network whose targets lie in `range` (the whole network: [0, neurons), the overload below).
template <class Exec>
SynapseRows<typename Exec::memory_space> generate_rows(const NetworkSpec& s, const TargetRange range,
                                                       GenerationTimes* times = nullptr) {
  using Mem = typename Exec::memory_space;
  constexpr bool host = std::is_same<Mem, Kokkos::HostSpace>::value;
  check_network_spec(s);
  if (range.first < 0 || range.first > range.last || range.last > s.neurons)
    throw std::invalid_argument("network part: targets [" + std::to_string(range.first) + ", " +
                                std::to_string(range.last) + ") not within the " + std::to_string(s.neurons) +
                                " neurons");
  GenerationTimes local;
  GenerationTimes& t = times ? *times : local;
  SynapseRows<Mem> rows;
  rows.neurons = s.neurons;
  rows.sources = s.poisson_sources;
  rows.targets = range;
  const std::int64_t posts = range.last - range.first;
  const std::int64_t pre_count = s.neurons + s.poisson_sources;
  const bool in_degree = s.connectivity == "fixed_in_degree";
  const bool all = s.connectivity == "all_to_all";
  const bool none = s.connectivity == "none" || (in_degree && s.in_degree == 0);

  Stopwatch phase;
  std::vector<std::uint64_t> geometric;
  std::vector<GeometricSampler> samplers;
  const long double p_neurons = s.connectivity == "fixed_probability" ? s.probability : 0.0;
  const int neuron_sampler = add_geometric_sampler(geometric, samplers, p_neurons);
  const int source_sampler = add_geometric_sampler(geometric, samplers, s.poisson_probability);
  detail::BernoulliRows<Mem> sweep{netgen::upload<std::uint64_t, Mem>(geometric, "spiking_geometric"),
                                   netgen::upload<GeometricSampler, Mem>(samplers, "spiking_samplers"),
                                   {}, {}, s.neurons, stream_key(s.seed, Purpose::Connectivity),
                                   neuron_sampler, source_sampler, all, !s.self_connections, false,
                                   range.first, range.last};
  rows.offsets = Kokkos::View<std::int64_t*, Mem>("spiking_offsets", pre_count + 1);
  sweep.offsets = rows.offsets;
  // Rows swept by Bernoulli draws: every row, or only the sources' when the neurons choose their inputs.
  const std::int64_t sweep_first = (in_degree || none) ? s.neurons : 0;

  using Layout = std::conditional_t<host, Kokkos::LayoutRight, Kokkos::LayoutLeft>;
  detail::Choices<Layout, Mem> choice;
  std::optional<detail::HostTranspose<Exec>> host_transpose;
  if (in_degree && !none) {
    choice = detail::Choices<Layout, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "spiking_choices"),
                                          posts, s.in_degree);
    netgen::advise_huge_pages(choice);
    if constexpr (host)
      detail::choose_with_bitmaps<Exec>(choice, s.seed, s.neurons, s.in_degree, s.self_connections, range.first);
    else
      Kokkos::parallel_for("kbrain::spiking::choose", Kokkos::RangePolicy<Exec>(0, posts),
                           detail::ChooseBySearch<Layout, Mem>{choice, s.seed, s.neurons, s.in_degree, range.first,
                                                               s.self_connections});
    if constexpr (host) {
      host_transpose.emplace(s.neurons, range.first, posts, s.in_degree);
      host_transpose->count(choice, rows.offsets);
      choice = {};  // staged: free them before the rows are allocated
    } else
      Kokkos::parallel_for("kbrain::spiking::count_choices", Kokkos::RangePolicy<Exec>(0, posts),
                           detail::CountChoices<Layout, Mem>{choice, rows.offsets});
  }
  if (sweep_first < pre_count)
    Kokkos::parallel_for("kbrain::spiking::count_rows", Kokkos::RangePolicy<Exec>(sweep_first, pre_count), sweep);
  Exec().fence();
  t.draw_s = phase.seconds();

  phase = Stopwatch();
  Kokkos::parallel_scan("kbrain::spiking::scan", Kokkos::RangePolicy<Exec>(0, pre_count + 1),
                        netgen::ExclusiveScan<Mem>{rows.offsets});
  const std::int64_t total = netgen::last_entry(rows.offsets);
  if (total > std::numeric_limits<std::int64_t>::max() / 16) throw std::invalid_argument("network: too many synapses");
  rows.target = Kokkos::View<std::int32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "spiking_target"),
                                                 total);
  netgen::advise_huge_pages(rows.target);
  sweep.target = rows.target;
  sweep.fill = true;
  if (sweep_first < pre_count)
    Kokkos::parallel_for("kbrain::spiking::fill_rows", Kokkos::RangePolicy<Exec>(sweep_first, pre_count), sweep);
  if constexpr (host) {
    if (host_transpose) host_transpose->place(rows.offsets, rows.target);
  } else if (choice.extent(0) != 0) {
    Kokkos::View<std::int64_t*, Mem> cursor(Kokkos::view_alloc(Kokkos::WithoutInitializing, "spiking_cursor"),
                                            s.neurons);
    Kokkos::deep_copy(cursor, Kokkos::subview(rows.offsets, std::make_pair(std::int64_t(0), s.neurons)));
    Kokkos::parallel_for("kbrain::spiking::place_choices", Kokkos::RangePolicy<Exec>(0, posts),
                         detail::PlaceChoices<Layout, Mem>{choice, cursor, rows.target, range.first});
  }
  Exec().fence();
  t.fill_s = phase.seconds();

  phase = Stopwatch();
  if (choice.extent(0) != 0 && !host) {  // the host transpose keeps post order: its rows are sorted already
    choice = {};  // the choices are no longer needed: free them before sorting
    const auto neuron_rows = Kokkos::subview(rows.offsets, std::make_pair(std::int64_t(0), s.neurons + 1));
    netgen::sort_rows<Exec, std::int32_t, Mem>(Kokkos::View<const std::int64_t*, Mem>(neuron_rows), rows.target,
                                               Kokkos::View<std::int32_t*, Mem>(), false);
    Exec().fence();
  }
  t.sort_s = phase.seconds();
  return rows;
}

// The whole network.
template <class Exec>
SynapseRows<typename Exec::memory_space> generate_rows(const NetworkSpec& s, GenerationTimes* times = nullptr) {
  return generate_rows<Exec>(s, TargetRange{0, s.neurons}, times);
}

}  // namespace kbrain::spiking
