// The host side of a Galbraith run: the memory check before allocation, the spike-count file and digest.
#include <fmt/format.h>

#include <iterator>
#include <stdexcept>

#include "core/text/atomic_file.hpp"

#include "models/galbraith_lif/galbraith_simulation.hpp"

namespace kbrain::galbraith {

void require_memory(const GalbraithPlan& plan, std::int64_t real_bytes, std::uint64_t available,
                    const std::string& device, bool state_on_host) {
  const std::int64_t needed = kbrain_layout_bytes(plan.neurons(), plan.synapses(), plan.taps(), plan.update, real_bytes);
  if (available == 0 || std::uint64_t(needed) <= available) return;
  // What fits: on a CPU backend the plan's network is held in the same memory, so the memory before it was built
  // (what is available now and the network's bytes) must hold a smaller network and its state.
  const double budget = double(available) + (state_on_host ? plan.host_bytes : 0.0);
  const std::string fits = largest_network_text(
      plan.topology, plan.neurons(), double(plan.synapses()), budget, [&](std::int64_t n, double s) {
        return double(kbrain_layout_bytes(n, static_cast<std::int64_t>(s), plan.taps(), plan.update, real_bytes)) +
               (state_on_host ? 8.0 * double(n + 1) + 8.0 * s : 0.0);
      });
  throw NotEnoughMemory(fmt::format(
      "{}the {} network of {} neurons and {} synapses ({} synapse update, L = {} taps) needs {} bytes ({:.2f} GiB) but "
      "{} has {} bytes ({:.2f} GiB) free; the study's layout (Table 4.2: 50 N + 24 S + 4 L (N + S) + 4 N) would need "
      "{} bytes; {}, or run the event-driven update or on a backend with more memory",
      plan.config ? plan.config->source.string() + ": [network]: " : "", to_string(plan.topology), plan.neurons(),
      plan.synapses(), to_string(plan.update), plan.taps(), needed,
      double(needed) / 1073741824.0, device, available, double(available) / 1073741824.0,
      study_layout_bytes(plan.neurons(), plan.synapses(), plan.taps()), fits));
}

void write_spike_counts(const std::filesystem::path& file, const std::vector<std::int32_t>& counts) {
  fmt::memory_buffer csv;
  auto out = std::back_inserter(csv);
  fmt::format_to(out, "neuron,count\n");
  for (std::size_t i = 0; i < counts.size(); ++i) fmt::format_to(out, "{},{}\n", i, counts[i]);
  text::write_file_atomically(file, fmt::to_string(csv));
}

double count_digest(const std::vector<std::int32_t>& counts) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the counts' bytes
  for (const std::int32_t c : counts)
    for (int b = 0; b < 4; ++b) {
      h ^= (static_cast<std::uint32_t>(c) >> (8 * b)) & 0xffu;
      h *= 1099511628211ull;
    }
  return double(h >> 11);
}

}  // namespace kbrain::galbraith
