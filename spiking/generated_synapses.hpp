#pragma once
// A spiking network's synapses made on the simulating backend: the rows (spiking/network_generation.hpp), then, per
// synapse, the weight rounded to the receptor's fixed-point grid and the packed delay/receptor, all from the rules'
// pure functions of (seed, pre, post). Nothing crosses the bus but the row offsets (for out-degrees on the host).
// Equal, synapse for synapse, to DeviceSynapses::upload(build_network(spec)) on every backend.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <Kokkos_Core.hpp>

#include "core/network/host_pages.hpp"
#include "core/timing/stopwatch.hpp"
#include "spiking/device_synapses.hpp"
#include "spiking/network_generation.hpp"
#include "spiking/network_rules.hpp"

namespace kbrain::spiking {

template <class Mem>
struct GeneratedSynapses {
  DeviceSynapses<Mem> csr;        // with dense storage: the Poisson sources' rows only
  DenseSynapses<Mem> dense;       // empty unless dense storage
  std::vector<std::int64_t> offsets;  // host copy of the full rows' offsets (out-degree of presynaptic p)
  GenerationTimes times;
  std::int64_t synapses() const { return offsets.empty() ? 0 : offsets.back(); }
};

namespace detail {

template <class Mem>
struct RowWeightBound {
  Kokkos::View<const std::int64_t*, Mem> offsets;
  Kokkos::View<const std::int32_t*, Mem> target;
  NetworkRules rules;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t pre, double& bound) const {
    const WeightRule& w = rules.weight_rule(pre);
    for (std::int64_t k = offsets(pre); k < offsets(pre + 1); ++k) {
      const double v = w.at(rules.seed, pre, target(k));
      const double a = v < 0 ? -v : v;
      if (a > bound) bound = a;
    }
  }
};

template <class Mem>
struct RowValues {
  Kokkos::View<const std::int64_t*, Mem> offsets;
  Kokkos::View<const std::int32_t*, Mem> target;
  Kokkos::View<std::int32_t*, Mem> weight;
  Kokkos::View<std::uint16_t*, Mem> delay_receptor;
  NetworkRules rules;
  double scale0 = 1, scale1 = 1;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t pre, int& max_delay) const {
    const int r = rules.receptor(pre);
    const double scale = r == 0 ? scale0 : scale1;
    const WeightRule& w = rules.weight_rule(pre);
    for (std::int64_t k = offsets(pre); k < offsets(pre + 1); ++k) {
      const std::int32_t post = target(k);
      weight(k) = static_cast<std::int32_t>(round_half_away(w.at(rules.seed, pre, post) * scale));
      const std::int32_t d = rules.delay.at(rules.seed, pre, post);
      delay_receptor(k) = static_cast<std::uint16_t>((d << 1) | r);
      if (d > max_delay) max_delay = d;
    }
  }
};

template <class Mem>
struct DenseFromRows {
  Kokkos::View<const std::int64_t*, Mem> offsets;
  Kokkos::View<const std::int32_t*, Mem> target, weight;
  Kokkos::View<std::int32_t**, Kokkos::LayoutRight, Mem> matrix;
  Kokkos::View<std::uint8_t*, Mem> receptor;
  NetworkRules rules;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t pre) const {
    receptor(pre) = static_cast<std::uint8_t>(rules.receptor(pre));
    for (std::int64_t k = offsets(pre); k < offsets(pre + 1); ++k) matrix(pre, target(k)) = weight(k);
  }
};

template <class Mem>
struct ShiftOffsets {  // rows before `first` synapse become empty
  Kokkos::View<const std::int64_t*, Mem> from;
  Kokkos::View<std::int64_t*, Mem> to;
  std::int64_t first = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t p) const { to(p) = from(p) > first ? from(p) - first : 0; }
};

// The largest |weight| of each receptor over the synapses that exist (classes without synapses count 0).
template <class Exec, class Mem>
void receptor_bounds(const SynapseRows<Mem>& rows, const NetworkRules& rules, const std::vector<std::int64_t>& off,
                     double* bound) {
  struct Class {
    std::int64_t first, last;
  };
  const Class classes[3] = {{0, rules.excitatory}, {rules.excitatory, rules.neurons},
                            {rules.neurons, rules.presynaptic()}};
  bound[0] = bound[1] = 0;
  for (const Class& c : classes) {
    if (c.first >= c.last || off[c.last] == off[c.first]) continue;
    const WeightRule& w = rules.weight_rule(c.first);
    double b = 0;
    if (!w.uniform)
      b = w.bound();
    else
      Kokkos::parallel_reduce("kbrain::spiking::weight_bound", Kokkos::RangePolicy<Exec>(c.first, c.last),
                              RowWeightBound<Mem>{rows.offsets, rows.target, rules}, Kokkos::Max<double>(b));
    double& slot = bound[rules.receptor(c.first)];
    if (b > slot) slot = b;  // (a Max reduction over rows without synapses gives the lowest double)
  }
}

}  // namespace detail

// Generates the network of `spec` on Exec. dense: the neuron -> neuron synapses as a dense matrix (one delay for
// all), the Poisson sources' in CSR.
template <class Exec>
GeneratedSynapses<typename Exec::memory_space> generate_synapses(const NetworkSpec& spec, const DelayRule& delay,
                                                                 bool dense = false) {
  using Mem = typename Exec::memory_space;
  GeneratedSynapses<Mem> g;
  if (delay.bound() > 32767) throw std::invalid_argument("synaptic delay above 32767 steps");
  if (dense && delay.choices != 0)
    throw std::invalid_argument("network.storage = \"dense\" needs one delay for every neuron synapse");
  const NetworkRules rules = rules_of(spec, delay);
  SynapseRows<Mem> rows = generate_rows<Exec>(spec, &g.times);

  Stopwatch phase;
  auto off_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows.offsets);
  g.offsets.assign(off_h.data(), off_h.data() + off_h.extent(0));
  DeviceSynapses<Mem>& d = g.csr;
  double bound[kMaxReceptors];
  detail::receptor_bounds<Exec>(rows, rules, g.offsets, bound);
  for (int r = 0; r < kMaxReceptors; ++r) d.scale[r] = fixed_point_scale(bound[r]);
  const std::int64_t total = rows.synapses(), pre_count = rules.presynaptic();
  Kokkos::View<std::int32_t*, Mem> w(Kokkos::view_alloc(Kokkos::WithoutInitializing, "syn_weight"), total);
  Kokkos::View<std::uint16_t*, Mem> dr(Kokkos::view_alloc(Kokkos::WithoutInitializing, "syn_delay_receptor"), total);
  netgen::advise_huge_pages(w);
  netgen::advise_huge_pages(dr);
  int max_delay = 0;
  Kokkos::parallel_reduce("kbrain::spiking::synapse_values", Kokkos::RangePolicy<Exec>(0, pre_count),
                          detail::RowValues<Mem>{rows.offsets, rows.target, w, dr, rules, d.scale[0], d.scale[1]},
                          Kokkos::Max<int>(max_delay));
  d.max_delay = max_delay > 0 ? max_delay : 0;  // a Max reduction over no synapses gives the lowest int
  if (!dense) {
    d.offsets = rows.offsets;
    d.target = rows.target;
    d.weight = w;
    d.delay_receptor = dr;
    d.count = total;
  } else {
    const std::int64_t n = spec.neurons, first = g.offsets[static_cast<std::size_t>(n)];
    Kokkos::View<std::int32_t**, Kokkos::LayoutRight, Mem> matrix("syn_dense_weight", n, n);
    Kokkos::View<std::uint8_t*, Mem> receptor("syn_dense_receptor", n);
    Kokkos::parallel_for("kbrain::spiking::dense", Kokkos::RangePolicy<Exec>(0, n),
                         detail::DenseFromRows<Mem>{rows.offsets, rows.target, w, matrix, receptor, rules});
    g.dense.weight = matrix;
    g.dense.receptor = receptor;
    g.dense.delay = delay.steps;
    g.dense.neurons = n;
    // The CSR keeps the sources' rows only.
    Kokkos::View<std::int64_t*, Mem> off(Kokkos::view_alloc(Kokkos::WithoutInitializing, "syn_offsets"), pre_count + 1);
    Kokkos::parallel_for("kbrain::spiking::source_offsets", Kokkos::RangePolicy<Exec>(0, pre_count + 1),
                         detail::ShiftOffsets<Mem>{rows.offsets, off, first});
    const auto tail = std::make_pair(first, total);
    Kokkos::View<std::int32_t*, Mem> tgt("syn_target", total - first), wt("syn_weight", total - first);
    Kokkos::View<std::uint16_t*, Mem> drt("syn_delay_receptor", total - first);
    Kokkos::deep_copy(tgt, Kokkos::subview(rows.target, tail));
    Kokkos::deep_copy(wt, Kokkos::subview(w, tail));
    Kokkos::deep_copy(drt, Kokkos::subview(dr, tail));
    d.offsets = off;
    d.target = tgt;
    d.weight = wt;
    d.delay_receptor = drt;
    d.count = total - first;
  }
  Exec().fence();
  g.times.values_s = phase.seconds();
  return g;
}

// A simulation's synapses: generated on Exec, or `given` (a network made by hand) uploaded as it is.
template <class Exec>
GeneratedSynapses<typename Exec::memory_space> make_synapses(const NetworkSpec& spec, const DelayRule& delay,
                                                             bool dense, const SynapseNetwork* given) {
  using Mem = typename Exec::memory_space;
  if (!given) return generate_synapses<Exec>(spec, delay, dense);
  GeneratedSynapses<Mem> g;
  Stopwatch upload;
  g.csr = DeviceSynapses<Mem>::upload(*given, dense);
  if (dense) g.dense = DenseSynapses<Mem>::upload(*given, g.csr.scale);
  g.offsets = given->offsets;
  Exec().fence();
  g.times.values_s = upload.seconds();
  return g;
}

}  // namespace kbrain::spiking
