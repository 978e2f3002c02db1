#pragma once
// The synapses of a population/projection network (spiking/projection_spec.hpp), made on the simulating backend:
// outgoing CSR over the presynaptic neuron, weights on the receptors' fixed-point grids, packed delay/receptor —
// the same DeviceSynapses every spiking run delivers from.
//   Each synapse of projection p has an index unique within p (fixed_total_number: its draw k; fixed_indegree:
//   target * K + j; fixed_outdegree: source * K + j; pairwise_bernoulli and all_to_all: source * Ny + target;
//   one_to_one: source). Its source and target come from integer-only draws keyed on (seed, p, index) (Lemire's exact
//   bounded integers, geometric skips from tables): no floating-point decision, so every backend draws the same
//   pairs. Its weight and delay are draws keyed on (seed, p, index) too.
//   count pass: row lengths (atomic integer adds: any order gives the same counts); scan; fill pass: each synapse
//   into its source's row at an atomic cursor with the key (p << 48 | index); then every row sorted by key, which
//   makes the order independent of the atomics; then the values.
// Rows that one per-source rule filled in order are sorted already; the sort only checks them.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "core/network/device_sampling.hpp"
#include "core/network/generate_network.hpp"
#include "core/network/host_pages.hpp"
#include "core/network/random_network.hpp"
#include "core/timing/stopwatch.hpp"
#include "spiking/device_synapses.hpp"
#include "spiking/generated_synapses.hpp"
#include "spiking/projection_spec.hpp"

namespace kbrain::spiking {

// A projection as the kernels see it.
struct ProjectionRule {
  int rule = 0, receptor = 0, sampler = -1;
  bool skip_self = false;                  // same population and no autapses
  std::int64_t src_first = 0, nx = 0, tgt_first = 0, ny = 0, count = 0;
  std::uint64_t connect_key = 0, weight_key = 0, delay_key = 0;
  DistRule weight, delay_ms;
  double dt_ms = 0.1;
};

inline constexpr int kProjectionKeyShift = 48;
inline constexpr std::uint64_t kProjectionIndexMask = (std::uint64_t(1) << kProjectionKeyShift) - 1;

namespace detail {

template <class Mem>
struct ProjectionPass {
  using Samplers = Kokkos::View<const GeometricSampler*, Mem>;
  Kokkos::View<const std::uint64_t*, Mem> geometric;
  Samplers samplers;
  ProjectionRule r;
  std::uint64_t projection = 0;
  Kokkos::View<std::int64_t*, Mem> rows;    // count pass: row lengths; fill pass: each row's next free slot
  Kokkos::View<std::int32_t*, Mem> target;  // fill pass only
  Kokkos::View<std::uint64_t*, Mem> key;    // fill pass only
  bool fill = false;

  KOKKOS_INLINE_FUNCTION void put(std::int64_t s, std::int64_t t, std::uint64_t index, bool shared_row) const {
    std::int64_t* cursor = &rows(r.src_first + s);
    if (!fill) {
      if (shared_row) kx::atomic_increment_i64(cursor);
      else ++*cursor;
      return;
    }
    const std::int64_t slot = shared_row ? kx::atomic_increment_i64(cursor) : (*cursor)++;
    target(slot) = static_cast<std::int32_t>(r.tgt_first + t);
    key(slot) = (projection << kProjectionKeyShift) | index;
  }

  // One work item: a synapse (fixed_total_number), a (target, j) draw (fixed_indegree), or a source row.
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    switch (r.rule) {
      case int(ConnectionRule::FixedTotalNumber): {
        netgen::DrawStream d(r.connect_key, static_cast<std::uint64_t>(i));
        std::int64_t s, t;
        do {
          s = static_cast<std::int64_t>(d.below(static_cast<std::uint64_t>(r.nx)));
          t = static_cast<std::int64_t>(d.below(static_cast<std::uint64_t>(r.ny)));
        } while (r.skip_self && s == t);
        put(s, t, static_cast<std::uint64_t>(i), true);
        break;
      }
      case int(ConnectionRule::FixedIndegree): {
        const std::int64_t t = i / r.count;
        netgen::DrawStream d(r.connect_key, static_cast<std::uint64_t>(i));
        std::int64_t s;
        do s = static_cast<std::int64_t>(d.below(static_cast<std::uint64_t>(r.nx)));
        while (r.skip_self && s == t);
        put(s, t, static_cast<std::uint64_t>(i), true);
        break;
      }
      case int(ConnectionRule::FixedOutdegree): {
        netgen::DrawStream d(r.connect_key, static_cast<std::uint64_t>(i));
        for (std::int64_t j = 0; j < r.count; ++j) {
          std::int64_t t;
          do t = static_cast<std::int64_t>(d.below(static_cast<std::uint64_t>(r.ny)));
          while (r.skip_self && t == i);
          put(i, t, static_cast<std::uint64_t>(i * r.count + j), false);
        }
        break;
      }
      case int(ConnectionRule::PairwiseBernoulli): {
        if (!netgen::sampler_active(samplers, r.sampler)) break;
        netgen::DrawStream d(r.connect_key, static_cast<std::uint64_t>(i));
        const std::uint64_t m = static_cast<std::uint64_t>(r.ny);
        std::uint64_t next = 0;
        while (next < m) {
          const std::uint64_t skip = netgen::geometric_skip(geometric, samplers, r.sampler, d);
          if (skip >= m - next) break;
          const std::int64_t t = static_cast<std::int64_t>(next + skip);
          if (!(r.skip_self && t == i)) put(i, t, static_cast<std::uint64_t>(i * r.ny + t), false);
          next += skip + 1;
        }
        break;
      }
      case int(ConnectionRule::OneToOne):
        if (!r.skip_self) put(i, i, static_cast<std::uint64_t>(i), false);
        break;
      default:  // AllToAll
        for (std::int64_t t = 0; t < r.ny; ++t)
          if (!(r.skip_self && t == i)) put(i, t, static_cast<std::uint64_t>(i * r.ny + t), false);
    }
  }

  std::int64_t items() const {
    if (r.rule == int(ConnectionRule::FixedTotalNumber)) return r.count;
    if (r.rule == int(ConnectionRule::FixedIndegree)) return r.ny * r.count;
    return r.nx;
  }
};

// Sorts a row by key (targets moved along) unless it is sorted already.
template <class Mem>
struct SortRowsByKey {
  Kokkos::View<const std::int64_t*, Mem> offsets;
  Kokkos::View<std::uint64_t*, Mem> key;
  Kokkos::View<std::int32_t*, Mem> target;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t row) const {
    const std::int64_t begin = offsets(row), n = offsets(row + 1) - begin;
    bool sorted = true;
    for (std::int64_t k = begin + 1; k < begin + n && sorted; ++k) sorted = key(k - 1) < key(k);
    if (!sorted) netgen::heap_sort_segment(key, target, true, begin, n);
  }
};

template <class Mem>
struct ProjectionValues {
  Kokkos::View<const std::int64_t*, Mem> offsets;
  Kokkos::View<const std::uint64_t*, Mem> key;
  Kokkos::View<const ProjectionRule*, Mem> rules;
  Kokkos::View<std::int32_t*, Mem> weight;
  Kokkos::View<std::uint16_t*, Mem> delay_receptor;
  double scale0 = 1, scale1 = 1;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t row, int& max_delay) const {
    for (std::int64_t k = offsets(row); k < offsets(row + 1); ++k) {
      const std::uint64_t p = key(k) >> kProjectionKeyShift, index = key(k) & kProjectionIndexMask;
      const ProjectionRule& r = rules(p);
      const double w = r.weight.at(r.weight_key, index) * (r.receptor == 0 ? scale0 : scale1);
      weight(k) = static_cast<std::int32_t>(round_half_away(w));
      const std::int32_t d = delay_steps(r.delay_ms.at(r.delay_key, index), r.dt_ms);
      delay_receptor(k) = static_cast<std::uint16_t>((d << 1) | r.receptor);
      if (d > max_delay) max_delay = d;
    }
  }
};

}  // namespace detail

// The largest |weight| each receptor can receive from the network's projections.
inline void projection_weight_bounds(const ProjectionNetwork& net, double* bound) {
  for (int r = 0; r < kMaxReceptors; ++r) bound[r] = 0;
  for (std::size_t k = 0; k < net.projections.size(); ++k) {
    const ProjectionSpec& p = net.projections[k];
    if (net.expected_synapses(k) > 0)
      bound[p.receptor] = std::fmax(bound[p.receptor], p.weight.largest_magnitude());
  }
}

// Generates the network on Exec. `extra_bound`: weights beyond the synapses' that share receptor 0's grid (a
// Poisson drive's), so that the scale holds them too.
template <class Exec>
GeneratedSynapses<typename Exec::memory_space> generate_projection_synapses(const ProjectionNetwork& net,
                                                                            double extra_bound = 0) {
  using Mem = typename Exec::memory_space;
  check_projection_network(net);
  GeneratedSynapses<Mem> g;
  const std::int64_t n = net.neurons();
  Stopwatch phase;

  std::vector<std::uint64_t> geometric;
  std::vector<GeometricSampler> samplers;
  std::vector<ProjectionRule> rules(net.projections.size());
  for (std::size_t k = 0; k < rules.size(); ++k) {
    const ProjectionSpec& p = net.projections[k];
    ProjectionRule& r = rules[k];
    r.rule = int(p.rule);
    r.receptor = p.receptor;
    r.skip_self = p.source == p.target && !p.autapses;
    r.src_first = net.populations[p.source].first;
    r.nx = net.populations[p.source].size;
    r.tgt_first = net.populations[p.target].first;
    r.ny = net.populations[p.target].size;
    r.count = p.count;
    r.connect_key = projection_key(net.seed, Purpose::Connectivity, std::int64_t(k));
    r.weight_key = projection_key(net.seed, Purpose::Weight, std::int64_t(k));
    r.delay_key = projection_key(net.seed, Purpose::Delay, std::int64_t(k));
    r.weight = p.weight;
    r.delay_ms = p.delay_ms;
    r.dt_ms = net.dt_ms;
    if (p.rule == ConnectionRule::PairwiseBernoulli)
      r.sampler = add_geometric_sampler(geometric, samplers, static_cast<long double>(p.probability));
  }
  const auto geometric_d = netgen::upload<std::uint64_t, Mem>(geometric, "projection_geometric");
  const auto samplers_d = netgen::upload<GeometricSampler, Mem>(samplers, "projection_samplers");

  Kokkos::View<std::int64_t*, Mem> offsets("projection_offsets", n + 1);
  const auto pass = [&](const ProjectionRule& r, std::uint64_t p, bool fill, const Kokkos::View<std::int64_t*, Mem>& rows,
                        const Kokkos::View<std::int32_t*, Mem>& target, const Kokkos::View<std::uint64_t*, Mem>& key) {
    detail::ProjectionPass<Mem> f{geometric_d, samplers_d, r, p, rows, target, key, fill};
    Kokkos::parallel_for(fill ? "kbrain::spiking::projection_fill" : "kbrain::spiking::projection_count",
                         Kokkos::RangePolicy<Exec>(0, f.items()), f);
  };
  for (std::size_t k = 0; k < rules.size(); ++k) pass(rules[k], k, false, offsets, {}, {});
  Exec().fence();
  g.times.draw_s = phase.seconds();

  phase = Stopwatch();
  Kokkos::parallel_scan("kbrain::spiking::projection_scan", Kokkos::RangePolicy<Exec>(0, n + 1),
                        netgen::ExclusiveScan<Mem>{offsets});
  const std::int64_t total = netgen::last_entry(offsets);
  Kokkos::View<std::int32_t*, Mem> target(Kokkos::view_alloc(Kokkos::WithoutInitializing, "syn_target"), total);
  Kokkos::View<std::uint64_t*, Mem> key(Kokkos::view_alloc(Kokkos::WithoutInitializing, "projection_keys"), total);
  netgen::advise_huge_pages(target);
  netgen::advise_huge_pages(key);
  {
    Kokkos::View<std::int64_t*, Mem> cursor(Kokkos::view_alloc(Kokkos::WithoutInitializing, "projection_cursor"), n);
    Kokkos::deep_copy(cursor, Kokkos::subview(offsets, std::make_pair(std::int64_t(0), n)));
    for (std::size_t k = 0; k < rules.size(); ++k) pass(rules[k], k, true, cursor, target, key);
  }
  Exec().fence();
  g.times.fill_s = phase.seconds();

  phase = Stopwatch();
  Kokkos::parallel_for("kbrain::spiking::projection_sort", Kokkos::RangePolicy<Exec>(0, n),
                       detail::SortRowsByKey<Mem>{offsets, key, target});
  Exec().fence();
  g.times.sort_s = phase.seconds();

  phase = Stopwatch();
  DeviceSynapses<Mem>& d = g.csr;
  double bound[kMaxReceptors];
  projection_weight_bounds(net, bound);
  bound[0] = std::fmax(bound[0], std::fabs(extra_bound));
  for (int r = 0; r < kMaxReceptors; ++r) d.scale[r] = fixed_point_scale(bound[r]);
  Kokkos::View<std::int32_t*, Mem> w(Kokkos::view_alloc(Kokkos::WithoutInitializing, "syn_weight"), total);
  Kokkos::View<std::uint16_t*, Mem> dr(Kokkos::view_alloc(Kokkos::WithoutInitializing, "syn_delay_receptor"), total);
  netgen::advise_huge_pages(w);
  netgen::advise_huge_pages(dr);
  int max_delay = 0;
  Kokkos::parallel_reduce("kbrain::spiking::projection_values", Kokkos::RangePolicy<Exec>(0, n),
                          detail::ProjectionValues<Mem>{offsets, key, netgen::upload<ProjectionRule, Mem>(rules, "projection_rules"),
                                                        w, dr, d.scale[0], d.scale[1]},
                          Kokkos::Max<int>(max_delay));
  d.max_delay = max_delay > 0 ? max_delay : 0;
  d.offsets = offsets;
  d.target = target;
  d.weight = w;
  d.delay_receptor = dr;
  d.count = total;
  auto off_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offsets);
  g.offsets.assign(off_h.data(), off_h.data() + off_h.extent(0));
  Exec().fence();
  g.times.values_s = phase.seconds();
  return g;
}

}  // namespace kbrain::spiking
