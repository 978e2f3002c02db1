#pragma once
// The bytes a spiking network's step must move, the numerator of compare's achieved GB/s. A lower bound: spike
// lists, the spike log, silent synapses and Poisson draws are left out.
//   per neuron and step: each live state variable read and written once, and each receptor's 64-bit ring slot read
//   (it is cleared only where something arrived);
//   per synaptic event: the CSR entry (target, fixed-point weight, delay and receptor) read, and the target's ring
//   slot read and written by the atomic add.
#include <cstddef>
#include <cstdint>

namespace kbrain::spiking {

inline double neuron_step_bytes(int live_variables, int receptors, std::size_t real_bytes) {
  return 2.0 * double(live_variables) * double(real_bytes) + double(receptors) * double(sizeof(long long));
}

inline constexpr double kSynapticEventBytes =
    double(sizeof(std::int32_t) + sizeof(std::int32_t) + sizeof(std::uint16_t) + 2 * sizeof(long long));

}  // namespace kbrain::spiking
