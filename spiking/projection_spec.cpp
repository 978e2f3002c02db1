#include "spiking/projection_spec.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace kbrain::spiking {

namespace {

// Rules whose synapse index is (source, target) need Nx * Ny below 2^48 (the generator's key packing).
constexpr double kMaxPairs = 281474976710656.0;

double candidates(const ProjectionNetwork& n, const ProjectionSpec& p) {
  const double nx = double(n.populations[p.source].size), ny = double(n.populations[p.target].size);
  return nx * ny - (p.source == p.target && !p.autapses ? nx : 0.0);
}

}  // namespace

const char* to_string(ConnectionRule r) {
  switch (r) {
    case ConnectionRule::FixedTotalNumber: return "fixed_total_number";
    case ConnectionRule::PairwiseBernoulli: return "pairwise_bernoulli";
    case ConnectionRule::FixedIndegree: return "fixed_indegree";
    case ConnectionRule::FixedOutdegree: return "fixed_outdegree";
    case ConnectionRule::OneToOne: return "one_to_one";
    case ConnectionRule::AllToAll: return "all_to_all";
  }
  return "?";
}

double ProjectionNetwork::expected_synapses(std::size_t k) const { return expected_synapses(projections[k]); }

double ProjectionNetwork::expected_synapses(const ProjectionSpec& p) const {
  const double nx = double(populations[p.source].size), ny = double(populations[p.target].size);
  switch (p.rule) {
    case ConnectionRule::FixedTotalNumber: return double(p.count);
    case ConnectionRule::PairwiseBernoulli: return candidates(*this, p) * p.probability;
    case ConnectionRule::FixedIndegree: return ny * double(p.count);
    case ConnectionRule::FixedOutdegree: return nx * double(p.count);
    case ConnectionRule::OneToOne: return p.source == p.target && !p.autapses ? 0.0 : nx;
    case ConnectionRule::AllToAll: return candidates(*this, p);
  }
  return 0;
}

double ProjectionNetwork::expected_synapses() const {
  double total = 0;
  for (std::size_t k = 0; k < projections.size(); ++k) total += expected_synapses(k);
  return total;
}

double ProjectionNetwork::synapse_bound() const {
  double total = 0;
  for (std::size_t k = 0; k < projections.size(); ++k) {
    const double mean = expected_synapses(k);
    total += projections[k].rule == ConnectionRule::PairwiseBernoulli ? mean + 8 * std::sqrt(mean) + 64 : mean;
  }
  return total;
}

std::int32_t ProjectionNetwork::max_delay_steps() const {
  std::int32_t m = 0;
  for (const auto& p : projections) m = std::max(m, delay_steps(p.delay_ms.highest(), dt_ms));
  return m;
}

void check_projection(const ProjectionNetwork& n, const ProjectionSpec& p) {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument(fmt::format("projection {}: {}", p.name, what));
  };
  if (p.source < 0 || p.target < 0 || p.source >= int(n.populations.size()) || p.target >= int(n.populations.size()))
    fail("unknown population");
  const std::int64_t nx = n.populations[p.source].size, ny = n.populations[p.target].size;
  const bool same = p.source == p.target;
  if (p.count < 0) fail("a negative count");
  if (!(p.probability >= 0 && p.probability <= 1)) fail(fmt::format("probability {} is outside [0, 1]", p.probability));
  if (p.receptor < 0 || p.receptor >= kMaxReceptors) fail("receptor out of range");
  if (double(nx) * double(ny) >= kMaxPairs) fail("more than 2^48 (source, target) pairs");
  if (n.expected_synapses(p) >= kMaxPairs)
    fail("more than 2^48 synapses");
  const double possible = candidates(n, p);
  switch (p.rule) {
    case ConnectionRule::FixedTotalNumber:
      if (p.count > 0 && possible < 1) fail("no (source, target) pair is allowed");
      if (!p.multapses && double(p.count) > possible)
        fail(fmt::format("{} synapses without multapses, but only {} pairs exist", p.count, possible));
      if (double(p.count) >= kMaxPairs) fail("more than 2^48 synapses");
      break;
    case ConnectionRule::FixedIndegree: {
      const std::int64_t sources = nx - (same && !p.autapses ? 1 : 0);
      if (p.count > 0 && sources < 1) fail("no source is allowed");
      if (!p.multapses && p.count > sources)
        fail(fmt::format("in-degree {} without multapses, but only {} sources", p.count, sources));
      break;
    }
    case ConnectionRule::FixedOutdegree: {
      const std::int64_t targets = ny - (same && !p.autapses ? 1 : 0);
      if (p.count > 0 && targets < 1) fail("no target is allowed");
      if (!p.multapses && p.count > targets)
        fail(fmt::format("out-degree {} without multapses, but only {} targets", p.count, targets));
      break;
    }
    case ConnectionRule::OneToOne:
      if (nx != ny) fail(fmt::format("one_to_one needs equal sizes (source {}, target {})", nx, ny));
      break;
    default: break;
  }
  const bool counted = p.rule == ConnectionRule::FixedTotalNumber || p.rule == ConnectionRule::FixedIndegree ||
                       p.rule == ConnectionRule::FixedOutdegree;
  if (counted && !p.multapses)
    fail(fmt::format("allow_multapses = false is not supported by {} (the generator draws with replacement, as NEST's "
                     "default); use pairwise_bernoulli or all_to_all for distinct pairs", to_string(p.rule)));
  for (const DistRule* d : {&p.weight, &p.delay_ms}) {
    if (d->kind != DistRule::Constant && !(d->b >= 0)) fail("a negative standard deviation or span");
    if (d->bound != DistRule::None && !(d->min <= d->max)) fail("min above max");
    if (!std::isfinite(d->lowest()) || !std::isfinite(d->highest())) fail("a distribution without finite bounds");
  }
  const double shortest = p.delay_ms.lowest();
  if (!(p.delay_ms.kind == DistRule::Constant && p.delay_ms.a == 0) && shortest < n.dt_ms / 2)
    fail(fmt::format("delays can be {} ms, below half a step ({} ms), which rounds to no delay: give min >= {} with "
                     "clip = \"redraw\" (or a constant 0 for arrival at the next step)",
                     shortest, n.dt_ms / 2, n.dt_ms / 2));
  if (delay_steps(p.delay_ms.highest(), n.dt_ms) > 32767) fail("delays above 32767 steps");
}

void check_projection_network(const ProjectionNetwork& n) {
  if (n.populations.empty()) throw std::invalid_argument("network: no populations");
  std::int64_t next = 0;
  for (const auto& pop : n.populations) {
    if (pop.first != next || pop.size < 1)
      throw std::invalid_argument(fmt::format("population {}: sizes must be >= 1 and contiguous", pop.name));
    next += pop.size;
  }
  if (next > std::numeric_limits<std::int32_t>::max() - 1)
    throw std::invalid_argument(fmt::format("network: {} neurons, at most 2^31-2", next));
  if (n.projections.size() >= (1u << 16)) throw std::invalid_argument("network: at most 65535 projections");
  for (const auto& p : n.projections) check_projection(n, p);
}

}  // namespace kbrain::spiking
