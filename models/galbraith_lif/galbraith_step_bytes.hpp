#pragma once
// The bytes a Galbraith run's steps had to move, the numerator of compare's achieved GB/s. A lower bound, from the
// run's per-neuron spike counts and the network (grouped by target), in elements of `real_bytes`:
//   event: per neuron-step the CSR offsets (8), V read and written, the refractory end (4 + 4), the stimulus, the
//          buffer's current tap, the spike flag (1); per synapse-step the source index (4) and its flag (1); per
//          spike arriving over a synapse its weight; and per (target, step) that received anything the L taps read
//          and written, counted as the fewest such steps the counts allow (a target receives at least as many steps
//          as its busiest source fired);
//   agent: per neuron-step the five stages' own arrays (stimulus and J_stim, offsets and J_spike, V, refractory end,
//          J_spike and J_stim again, spike and axon flags); per synapse-step the source index and flag, the buffer's
//          head read and cleared, the synapse current written and read back with the weight; per spike arriving over
//          a synapse the L taps read and written.
// The filter h (L values, cached) and the spike-flag ring of spike files are left out.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/galbraith_lif/galbraith_network.hpp"
#include "models/galbraith_lif/galbraith_plan.hpp"

namespace kbrain::galbraith {

inline double galbraith_bytes_moved(const HostNetwork& net, const std::vector<std::int32_t>& counts, std::int64_t steps,
                                    std::int64_t taps, SynapseUpdate update, std::size_t real_bytes) {
  const double R = double(real_bytes), n = double(net.neurons), s = double(net.synapses()), t = double(steps);
  double arriving = 0;   // spikes that crossed a synapse
  double receiving = 0;  // a lower bound of the (target, step) pairs with something arriving
  for (std::int64_t i = 0; i < net.neurons; ++i) {
    std::int32_t busiest = 0;
    for (std::int64_t k = net.offsets[std::size_t(i)]; k < net.offsets[std::size_t(i) + 1]; ++k) {
      const std::int32_t c = counts[std::size_t(net.src[std::size_t(k)])];
      arriving += c;
      busiest = std::max(busiest, c);
    }
    receiving += busiest;
  }
  const double taps_rw = 2.0 * double(taps) * R;
  if (update == SynapseUpdate::Event)
    return t * n * (4 * R + 17) + t * s * 5 + arriving * R + receiving * taps_rw;
  return t * n * (7 * R + 19) + t * s * (5 * R + 5) + arriving * taps_rw;
}

}  // namespace kbrain::galbraith
