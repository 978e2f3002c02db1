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

  static DeviceSynapses upload(const SynapseNetwork& net) {
    DeviceSynapses d;
    d.count = net.synapses();
    double max_abs[kMaxReceptors] = {0, 0};
    for (std::int64_t k = 0; k < d.count; ++k) {
      const int r = net.receptor[k];
      if (r >= kMaxReceptors) throw std::invalid_argument("synapse receptor out of range");
      max_abs[r] = std::fmax(max_abs[r], std::fabs(net.weight[k]));
    }
    for (int r = 0; r < kMaxReceptors; ++r) d.scale[r] = fixed_point_scale(max_abs[r]);
    d.max_delay = net.max_delay();
    if (d.max_delay > 32767) throw std::invalid_argument("synaptic delay above 32767 steps");

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
    for (std::size_t k = 0; k < net.offsets.size(); ++k) off_h(k) = net.offsets[k];
    for (std::int64_t k = 0; k < d.count; ++k) {
      tgt_h(k) = net.target[k];
      w_h(k) = static_cast<std::int32_t>(std::llround(net.weight[k] * d.scale[net.receptor[k]]));
      dr_h(k) = static_cast<std::uint16_t>((net.delay[k] << 1) | net.receptor[k]);
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

}  // namespace kbrain::spiking
