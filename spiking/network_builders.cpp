// Host builders: fixed probability (geometric skipping, O(synapses)), fixed in-degree (rejection sampling of
// distinct presynaptic neurons, then a counting-sort transpose to outgoing CSR), all-to-all and none.
#include "spiking/network_builders.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "spiking/counter_draws.hpp"

namespace kbrain::spiking {

namespace {

struct Edge {
  std::int32_t target;
  double weight;
};

const WeightSpec& weight_of(const NetworkSpec& s, std::int64_t pre) {
  if (pre >= s.neurons) return s.w_poisson;
  return pre < s.excitatory ? s.w_exc : s.w_inh;
}

int receptor_of(const NetworkSpec& s, std::int64_t pre) {
  return (pre >= s.neurons || pre < s.excitatory) ? 0 : s.inhibitory_receptor;
}

// Targets of `pre` among [0, n): each independently with probability p, by geometric gaps between hits.
void bernoulli_targets(std::uint64_t seed, std::int64_t pre, std::int64_t n, double p, bool skip_self,
                       std::vector<std::int32_t>& out) {
  out.clear();
  if (p <= 0) return;
  if (p >= 1) {
    for (std::int64_t i = 0; i < n; ++i)
      if (!(skip_self && i == pre)) out.push_back(static_cast<std::int32_t>(i));
    return;
  }
  const double log_q = std::log1p(-p);
  std::int64_t i = -1;
  for (std::uint64_t k = 0;; ++k) {
    const double u = draw_uniform(seed, Purpose::Connectivity, static_cast<std::uint64_t>(pre), k);
    const double gap = std::floor(std::log1p(-u) / log_q);  // failures before the next success
    if (gap >= double(n)) return;
    i += 1 + static_cast<std::int64_t>(gap);
    if (i >= n) return;
    if (!(skip_self && i == pre)) out.push_back(static_cast<std::int32_t>(i));
  }
}

void check(const NetworkSpec& s) {
  if (s.neurons < 1 || s.neurons > std::numeric_limits<std::int32_t>::max())
    throw std::invalid_argument("network: neurons must be in [1, 2^31-1]");
  if (s.excitatory < 0 || s.excitatory > s.neurons)
    throw std::invalid_argument("network: excitatory must be in [0, neurons]");
  if (s.connectivity == "fixed_in_degree" && s.in_degree > s.neurons - (s.self_connections ? 0 : 1))
    throw std::invalid_argument("network: in_degree is larger than the number of possible presynaptic neurons");
  if (s.delay_ms < 0) throw std::invalid_argument("network: delay must be >= 0");
}

}  // namespace

double draw_weight(const WeightSpec& w, std::uint64_t seed, std::int64_t pre, std::int64_t post) {
  if (w.kind == "uniform")
    return w.low + (w.high - w.low) * draw_uniform(seed, Purpose::Weight, static_cast<std::uint64_t>(pre),
                                                   static_cast<std::uint64_t>(post));
  return w.value;
}

SynapseNetwork build_network(const NetworkSpec& s, double dt_ms) {
  check(s);
  SynapseNetwork net;
  net.neurons = s.neurons;
  net.sources = s.poisson_sources;
  if (s.excitatory > 0) net.populations.push_back({"exc", 0, s.excitatory, 0});
  if (s.neurons > s.excitatory) net.populations.push_back({"inh", s.excitatory, s.neurons - s.excitatory, s.inhibitory_receptor});
  const std::int32_t delay = static_cast<std::int32_t>(std::llround(s.delay_ms / dt_ms));
  const std::int64_t pre_count = net.presynaptic();

  // Outgoing target lists per presynaptic index, in ascending target order.
  std::vector<std::vector<std::int32_t>> out(static_cast<std::size_t>(pre_count));
  if (s.connectivity == "fixed_probability" || s.connectivity == "all_to_all") {
    const double p = s.connectivity == "all_to_all" ? 1.0 : s.probability;
    for (std::int64_t pre = 0; pre < s.neurons; ++pre)
      bernoulli_targets(s.seed, pre, s.neurons, p, !s.self_connections, out[pre]);
  } else if (s.connectivity == "fixed_in_degree") {
    std::vector<std::int32_t> chosen;
    std::vector<std::uint64_t> taken((static_cast<std::size_t>(s.neurons) + 63) / 64, 0);  // bitmap of `chosen`
    for (std::int64_t post = 0; post < s.neurons; ++post) {
      chosen.clear();
      for (std::uint64_t k = 0; static_cast<std::int64_t>(chosen.size()) < s.in_degree; ++k) {
        const auto pre = static_cast<std::int32_t>(
            draw_uniform(s.seed, Purpose::Connectivity, static_cast<std::uint64_t>(post), k) * double(s.neurons));
        const std::uint64_t bit = std::uint64_t(1) << (pre & 63);
        if ((!s.self_connections && pre == post) || (taken[pre >> 6] & bit) != 0) continue;
        taken[pre >> 6] |= bit;
        chosen.push_back(pre);
      }
      for (auto pre : chosen) {
        out[pre].push_back(static_cast<std::int32_t>(post));  // post ascending: sorted
        taken[pre >> 6] = 0;
      }
    }
  } else if (s.connectivity != "none") {
    throw std::invalid_argument("network: unknown connectivity '" + s.connectivity + "'");
  }
  std::vector<std::int32_t> scratch;
  for (std::int64_t src = 0; src < s.poisson_sources; ++src) {
    // Poisson sources use their own streams: presynaptic index = neurons + src.
    bernoulli_targets(s.seed, s.neurons + src, s.neurons, s.poisson_probability, false, scratch);
    out[s.neurons + src] = scratch;
  }

  net.offsets.assign(static_cast<std::size_t>(pre_count) + 1, 0);
  for (std::int64_t p = 0; p < pre_count; ++p) net.offsets[p + 1] = net.offsets[p] + std::int64_t(out[p].size());
  const auto total = static_cast<std::size_t>(net.offsets.back());
  net.target.reserve(total);
  net.weight.reserve(total);
  for (std::int64_t p = 0; p < pre_count; ++p) {
    const WeightSpec& w = weight_of(s, p);
    for (auto t : out[p]) {
      net.target.push_back(t);
      net.weight.push_back(draw_weight(w, s.seed, p, t));
    }
    std::vector<std::int32_t>().swap(out[p]);
  }
  net.delay.assign(total, delay);
  net.receptor.resize(total);
  for (std::int64_t p = 0; p < pre_count; ++p)
    std::fill(net.receptor.begin() + net.offsets[p], net.receptor.begin() + net.offsets[p + 1],
              static_cast<std::uint8_t>(receptor_of(s, p)));
  return net;
}

}  // namespace kbrain::spiking
