#pragma once
// The device state of a Galbraith network. Common: the neurons (V, refractory end step, spike count, stimulus) and
// the synapses grouped by target (offsets, source, weight), the PSC filter h. Then the variant's buffers:
//   event: one circular PSC buffer of L taps per target neuron in the memory space's default layout: tap-major on
//          GPUs (neighbouring neurons are neighbours in memory, so the every-step read of the current tap is
//          coalesced), neuron-major on hosts (a neuron's taps share cache lines); spike flags of the last two steps
//          (a step reads its sources' flags of the step before);
//   agent: the study's arrays (Table 4.2): one circular buffer of L floats per synapse at the study's stride, the
//          synapses' output currents, the dendrites' summed current, axon buffers and spike flags.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "models/galbraith_lif/galbraith_plan.hpp"

namespace kbrain::galbraith {

template <class Real, class Mem>
struct GalbraithState {
  using Reals = Kokkos::View<Real*, Mem>;
  using Ints = Kokkos::View<std::int32_t*, Mem>;
  using Flags = Kokkos::View<std::uint8_t*, Mem>;

  std::int64_t n = 0, s = 0, taps = 0, stride = 0;
  Reals V, stimulus;
  Ints ref_end, count;
  Kokkos::View<std::int64_t*, Mem> offsets;
  Ints src;
  Reals weight, filter;
  // event
  Kokkos::View<Real**, Mem> neuron_buffer;  // (neuron, tap), the memory space's default layout
  Flags spikes_even, spikes_odd;  // spike flags of the last even and odd step
  // agent
  Reals synapse_buffer, synapse_current, j_spike, j_stim;
  Flags axon, spike;

  void allocate(const GalbraithPlan& plan) {
    n = plan.neurons();
    s = plan.synapses();
    taps = plan.taps();
    stride = study_buffer_stride(taps);
    V = Reals("galbraith_V", n);
    stimulus = Reals("galbraith_stimulus", n);
    ref_end = Ints("galbraith_ref_end", n);
    count = Ints("galbraith_count", n);
    offsets = Kokkos::View<std::int64_t*, Mem>("galbraith_offsets", n + 1);
    src = Ints("galbraith_src", s);
    weight = Reals("galbraith_weight", s);
    filter = Reals("galbraith_filter", taps);
    if (plan.update == SynapseUpdate::Event) {
      neuron_buffer = Kokkos::View<Real**, Mem>("galbraith_neuron_buffer", n, taps);
      spikes_even = Flags("galbraith_spikes_even", n);
      spikes_odd = Flags("galbraith_spikes_odd", n);
    } else {
      synapse_buffer = Reals("galbraith_synapse_buffer", s * stride);
      synapse_current = Reals("galbraith_synapse_current", s);
      j_spike = Reals("galbraith_j_spike", n);
      j_stim = Reals("galbraith_j_stim", n);
      axon = Flags("galbraith_axon", n);
      spike = Flags("galbraith_spike", n);
    }
  }

  // The spike flags step `step` leaves behind: event: those of its parity; agent: the one set.
  KOKKOS_INLINE_FUNCTION const Flags& flags_of_step(std::int64_t step) const {
    return spike.extent(0) ? spike : step % 2 == 0 ? spikes_even : spikes_odd;
  }

  void upload(const GalbraithPlan& plan) {
    const HostNetwork& net = *plan.network;
    auto off = Kokkos::create_mirror_view(offsets);
    for (std::int64_t i = 0; i <= n; ++i) off(i) = net.offsets[static_cast<std::size_t>(i)];
    Kokkos::deep_copy(offsets, off);
    auto sh = Kokkos::create_mirror_view(src);
    auto wh = Kokkos::create_mirror_view(weight);
    for (std::int64_t k = 0; k < s; ++k) {
      sh(k) = net.src[static_cast<std::size_t>(k)];
      wh(k) = Real(net.weight[static_cast<std::size_t>(k)]);
    }
    Kokkos::deep_copy(src, sh);
    Kokkos::deep_copy(weight, wh);
    auto hh = Kokkos::create_mirror_view(filter);
    for (std::int64_t k = 0; k < taps; ++k) hh(k) = Real(plan.filter[static_cast<std::size_t>(k)]);
    Kokkos::deep_copy(filter, hh);
    auto st = Kokkos::create_mirror_view(stimulus);
    for (const auto i : plan.stimulated) st(i) = Real(plan.params.stimulus);
    Kokkos::deep_copy(stimulus, st);
  }
};

}  // namespace kbrain::galbraith
