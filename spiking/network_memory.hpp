#pragma once
// Bytes a spiking network run needs on its backend, from the spec alone (before anything is allocated): the
// generator's peak (rows, the fixed in-degree choices and cursors, then weights and packed delays), the synapse
// arrays that stay, the dense matrix, the delay ring, the spike lists and log, and the neuron state. Random counts
// (fixed probability, Poisson sources) are bounded by their mean plus eight standard deviations.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "spiking/network_spec.hpp"
#include "spiking/synapse_draws.hpp"

namespace kbrain::spiking {

struct SpikingMemoryShape {
  NetworkSpec spec;
  std::int32_t max_delay = 0;   // network steps (DelayRule::bound)
  bool dense = false;
  int receptors = 2;
  int state_values = 8;         // per neuron, of `real_bytes` each
  int real_bytes = 8;
  std::int64_t log_capacity = 0;  // spike log entries (0: one per neuron)
  double projection_synapses = 0; // a population network's synapses (bound; spec then has no synapses of its own)
  double drive_neurons = 0;       // neurons with a Poisson-count drive (3 values each)
};

inline double synapse_bound(const NetworkSpec& s) {
  const double mean = expected_synapses(s);
  if (s.connectivity == "fixed_in_degree" || s.connectivity == "all_to_all" || s.connectivity == "none")
    return mean + (s.poisson_sources > 0 ? 8 * std::sqrt(mean) + 64 : 0);
  return mean + 8 * std::sqrt(mean) + 64;
}

inline double spiking_device_bytes(const SpikingMemoryShape& m) {
  const NetworkSpec& s = m.spec;
  const double n = double(s.neurons), pre = double(s.presynaptic()), syn = synapse_bound(s);
  const double rows = 8 * (pre + 1);
  double generation = rows + 10 * syn;  // target + weight + packed delay/receptor
  if (s.connectivity == "fixed_in_degree") {
    // GPUs: the choices, cursors and rows; host: 6 bytes of staging a choice beside the choices, then the rows
    const double chosen = n * double(s.in_degree);
    generation = std::max({generation, rows + 4 * syn + 4 * chosen + 8 * n,
                           rows + 6 * chosen + 4 * std::max(chosen, syn)});
  }
  double kept = rows + 10 * syn;
  if (m.projection_synapses > 0) {  // rows and cursors; target and key, then weight and packed delay
    generation = std::max(generation, 16 * (n + 1) + 18 * m.projection_synapses);
    kept += 10 * m.projection_synapses;
  }
  if (m.dense) {  // the matrix, and the sources' rows in CSR
    NetworkSpec sources_only = s;
    sources_only.connectivity = "none";
    generation += 4 * n * n + n;
    kept = 4 * n * n + n + rows + 10 * synapse_bound(sources_only);
  }
  const double ring = double(m.max_delay + 2) * m.receptors * n * 8;
  const double lists = 3 * 4 * pre + 2 * 4 * double(std::max<std::int64_t>(m.log_capacity, s.neurons));
  const double state = n * m.state_values * m.real_bytes + 2 * n * 8;
  return std::max(generation, kept) + ring + lists + state + 24 * m.drive_neurons;
}

// Refuses (std::invalid_argument with the bytes needed and the largest network of the same rule that fits) when
// the run needs more than `available` bytes; available = 0 means unknown: no check.
inline void require_spiking_memory(const SpikingMemoryShape& m, double available, const std::string& device) {
  const double need = spiking_device_bytes(m);
  if (available <= 0 || need <= available) return;
  if (m.projection_synapses > 0)  // synapses scale with n_scaling * k_scaling (network.scale squared)
    throw std::invalid_argument(fmt::format(
        "the network of {} neurons and about {:.3g} synapses needs {:.2f} GiB ({:.0f} bytes) on {} but {:.2f} GiB are "
        "free; about {:.3g} times its network.scale fits",
        m.spec.neurons, m.projection_synapses, need / 1073741824.0, need, device, available / 1073741824.0,
        std::sqrt(available / need)));
  SpikingMemoryShape probe = m;
  std::int64_t lo = 0, hi = m.spec.neurons;  // fits(lo) (or lo == 0), !fits(hi)
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    probe.spec.neurons = mid;
    probe.spec.excitatory = m.spec.excitatory * mid / m.spec.neurons;
    if (probe.spec.connectivity == "fixed_in_degree") probe.spec.in_degree = std::min(m.spec.in_degree, mid - 1);
    (spiking_device_bytes(probe) <= available ? lo : hi) = mid;
  }
  throw std::invalid_argument(fmt::format(
      "the network of {} neurons ({} connectivity, about {:.3g} synapses) needs {:.2f} GiB ({:.0f} bytes) on {} but "
      "{:.2f} GiB are free; the largest network of this rule that fits has {} neurons",
      m.spec.neurons, m.spec.connectivity, synapse_bound(m.spec), need / 1073741824.0, need, device,
      available / 1073741824.0, lo));
}

}  // namespace kbrain::spiking
