#pragma once
// Named, independent random streams on top of the counter RNG (core/rng/counter_rng.hpp): every draw is a pure
// function of (run seed, purpose, stream, counter), so the host builders and every backend see the same numbers.
#include <cmath>
#include <cstdint>

#include "core/rng/counter_rng.hpp"

namespace kbrain::spiking {

// What a stream is used for; part of the key, so that e.g. connectivity and weights never share draws.
enum class Purpose : std::uint64_t {
  Connectivity = 1,  // stream = presynaptic (fixed probability) or postsynaptic (fixed in-degree) neuron
  Weight = 2,        // stream = presynaptic neuron, counter = postsynaptic neuron
  Initial = 3,       // stream = neuron, counter = draw index
  Noise = 4,         // stream = neuron, counter = step
  Poisson = 5,       // stream = source, counter = step
  CellParameter = 6, // stream = neuron (Izhikevich r)
  Delay = 7,         // stream = presynaptic neuron, counter = postsynaptic neuron
  PoissonCount = 8,  // stream = neuron, counter = step (spiking/poisson_drive.hpp)
};

KBRAIN_HOST_DEVICE inline std::uint64_t stream_key(std::uint64_t seed, Purpose purpose) {
  return seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(purpose) * 0xD1B54A32D192ED03ull;
}

// Uniform in [0, 1), 53 bits.
KBRAIN_HOST_DEVICE inline double draw_uniform(std::uint64_t seed, Purpose purpose, std::uint64_t stream,
                                              std::uint64_t counter) {
  return counter_uniform(stream_key(seed, purpose), stream, counter);
}

// Standard normal on the host (Box-Muller on two uniforms of counters 2k, 2k+1). Device code uses its own
// (models/point/noise_current.hpp), so host and device values need not be bit-identical.
inline double draw_normal_host(std::uint64_t seed, Purpose purpose, std::uint64_t stream, std::uint64_t k) {
  const double u1 = 1.0 - draw_uniform(seed, purpose, stream, 2 * k);  // (0, 1]
  const double u2 = draw_uniform(seed, purpose, stream, 2 * k + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace kbrain::spiking
