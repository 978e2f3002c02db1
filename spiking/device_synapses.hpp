#pragma once
// The synapse CSR on a backend, with weights in fixed point. Arrivals are summed as 64-bit integers (atomic adds
// of integers give the same sum in any order), so every backend and thread count delivers bit-identical input.
// Each receptor gets its own scale 2^k, the largest that keeps |weight| * 2^k < 2^30; the weights are rounded to
// that grid once, at upload (relative rounding <= 2^-30 of the largest weight of that receptor).
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include <Kokkos_Core.hpp>

#include "spiking/synapse_network.hpp"

namespace kbrain::spiking {

// Power-of-two scale for weights up to max_abs (max_abs = 0 -> 2^30).
inline double fixed_point_scale(double max_abs) {
  int k = 30;
  if (max_abs > 0) k = 30 - static_cast<int>(std::ceil(std::log2(max_abs)));
  if (k > 60) k = 60;
  return std::ldexp(1.0, k);
}

template <class Mem>
struct DeviceSynapses {
  Kokkos::View<const std::int64_t*, Mem> offsets;  // presynaptic + 1
  Kokkos::View<const std::int32_t*, Mem> target;
  Kokkos::View<const std::int32_t*, Mem> weight;   // fixed point, receptor scale
  Kokkos::View<const std::uint16_t*, Mem> delay_receptor;  // delay << 1 | receptor
  double scale[kMaxReceptors] = {1.0, 1.0};
  int max_delay = 0;
  std::int64_t count = 0;

  // Receptor scales from every synapse of the network (CSR and dense parts share them).
  static void receptor_scales(const SynapseNetwork& net, double* scale) {
    double max_abs[kMaxReceptors] = {0, 0};
    for (std::int64_t k = 0; k < net.synapses(); ++k) {
      const int r = net.receptor[k];
      if (r >= kMaxReceptors) throw std::invalid_argument("synapse receptor out of range");
      max_abs[r] = std::fmax(max_abs[r], std::fabs(net.weight[k]));
    }
    for (int r = 0; r < kMaxReceptors; ++r) scale[r] = fixed_point_scale(max_abs[r]);
  }

  // The whole network in CSR; with skip_neuron_rows, the neurons' own rows are left empty (they are stored dense,
  // see DenseSynapses) and only the Poisson sources' synapses remain.
  static DeviceSynapses upload(const SynapseNetwork& net, bool skip_neuron_rows = false) {
    DeviceSynapses d;
    receptor_scales(net, d.scale);
    d.max_delay = net.max_delay();
    if (d.max_delay > 32767) throw std::invalid_argument("synaptic delay above 32767 steps");
    const std::int64_t first = skip_neuron_rows ? net.offsets[static_cast<std::size_t>(net.neurons)] : 0;
    d.count = net.synapses() - first;

    Kokkos::View<std::int64_t*, Mem> off(Kokkos::view_alloc(Kokkos::WithoutInitializing, "syn_offsets"),
                                         net.offsets.size());
    Kokkos::View<std::int32_t*, Mem> tgt(Kokkos::view_alloc(Kokkos::WithoutInitializing, "syn_target"), d.count);
    Kokkos::View<std::int32_t*, Mem> w(Kokkos::view_alloc(Kokkos::WithoutInitializing, "syn_weight"), d.count);
    Kokkos::View<std::uint16_t*, Mem> dr(Kokkos::view_alloc(Kokkos::WithoutInitializing, "syn_delay_receptor"),
                                         d.count);
    auto off_h = Kokkos::create_mirror_view(off);
    auto tgt_h = Kokkos::create_mirror_view(tgt);
    auto w_h = Kokkos::create_mirror_view(w);
    auto dr_h = Kokkos::create_mirror_view(dr);
    for (std::size_t k = 0; k < net.offsets.size(); ++k)
      off_h(k) = net.offsets[k] > first ? net.offsets[k] - first : 0;
    for (std::int64_t k = 0; k < d.count; ++k) {
      const std::size_t j = static_cast<std::size_t>(k + first);
      tgt_h(k) = net.target[j];
      w_h(k) = static_cast<std::int32_t>(std::llround(net.weight[j] * d.scale[net.receptor[j]]));
      dr_h(k) = static_cast<std::uint16_t>((net.delay[j] << 1) | net.receptor[j]);
    }
    Kokkos::deep_copy(off, off_h);
    Kokkos::deep_copy(tgt, tgt_h);
    Kokkos::deep_copy(w, w_h);
    Kokkos::deep_copy(dr, dr_h);
    d.offsets = off;
    d.target = tgt;
    d.weight = w;
    d.delay_receptor = dr;
    return d;
  }

  std::int64_t device_bytes() const {
    return static_cast<std::int64_t>(offsets.extent(0) * 8 + count * (4 + 4 + 2));
  }
};

// Dense storage of the neuron -> neuron synapses (`storage = "dense"`, meant for all-to-all blocks): a fixed-point
// weight matrix (presynaptic row, postsynaptic column; 0 = no synapse) in the receptor scales of the CSR part, the
// receptor of each presynaptic neuron and one delay for all. Delivery gathers a column per target (no atomics), and
// the integer sums equal the CSR delivery's bit for bit.
template <class Mem>
struct DenseSynapses {
  Kokkos::View<const std::int32_t**, Kokkos::LayoutRight, Mem> weight;
  Kokkos::View<const std::uint8_t*, Mem> receptor;
  int delay = 0;
  std::int64_t neurons = 0;

  bool empty() const { return neurons == 0; }

  static DenseSynapses upload(const SynapseNetwork& net, const double* scale) {
    DenseSynapses d;
    d.neurons = net.neurons;
    const auto n = static_cast<std::size_t>(net.neurons);
    Kokkos::View<std::int32_t**, Kokkos::LayoutRight, Mem> w("syn_dense_weight", n, n);
    Kokkos::View<std::uint8_t*, Mem> rec("syn_dense_receptor", n);
    auto w_h = Kokkos::create_mirror_view(w);
    auto rec_h = Kokkos::create_mirror_view(rec);
    Kokkos::deep_copy(w_h, 0);
    Kokkos::deep_copy(rec_h, 0);
    bool delay_set = false;
    for (std::size_t pre = 0; pre < n; ++pre) {
      for (std::int64_t k = net.offsets[pre]; k < net.offsets[pre + 1]; ++k) {
        const auto j = static_cast<std::size_t>(k);
        if (!delay_set) d.delay = net.delay[j];
        delay_set = true;
        if (net.delay[j] != d.delay)
          throw std::invalid_argument("network.storage = \"dense\" needs one delay for every neuron synapse");
        if (k > net.offsets[pre] && net.receptor[j] != rec_h(pre))
          throw std::invalid_argument("network.storage = \"dense\" needs one receptor per presynaptic neuron");
        rec_h(pre) = net.receptor[j];
        const long long q = w_h(pre, net.target[j]) + std::llround(net.weight[j] * scale[net.receptor[j]]);
        if (q > INT32_MAX || q < INT32_MIN) throw std::invalid_argument("dense synapse weight overflows");
        w_h(pre, net.target[j]) = static_cast<std::int32_t>(q);
      }
    }
    Kokkos::deep_copy(w, w_h);
    Kokkos::deep_copy(rec, rec_h);
    d.weight = w;
    d.receptor = rec;
    return d;
  }

  std::int64_t device_bytes() const { return neurons * neurons * 4 + neurons; }
};

}  // namespace kbrain::spiking
