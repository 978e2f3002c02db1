#include "models/point/projection_setup.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "spiking/counter_draws.hpp"

namespace kbrain::point {

namespace {

using spiking::DistRule;

// Numpy's round (half to even), as the reference code rounds sizes and counts: llrint in the default rounding mode.
std::int64_t round_even(double x) { return static_cast<std::int64_t>(std::llrint(x)); }

int population_index(const PopulationNetworkConfig& c, const std::string& name) {
  for (std::size_t k = 0; k < c.populations.size(); ++k)
    if (c.populations[k].name == name) return static_cast<int>(k);
  throw std::invalid_argument("unknown population \"" + name + "\"");
}

// `factor` multiplies every value (weights scaled by 1/sqrt(k_scaling)); a sign-only bound (clip without min or
// max) keeps the values on the mean's side of 0 (NEST's redraw of PD14's weights).
DistRule rule_of(const DistributionConfig& d, double factor) {
  DistRule r;
  if (d.dist == "constant") return DistRule::constant(d.value * factor);
  if (d.dist == "normal") {
    r.kind = DistRule::Normal;
    r.a = d.mean * factor;
    r.b = d.std * std::fabs(factor);
  } else if (d.dist == "uniform") {
    r.kind = DistRule::Uniform;
    r.a = d.low * factor;
    r.b = (d.high - d.low) * factor;
    if (factor < 0) throw std::invalid_argument("a negative factor of a uniform distribution");
  } else {
    r.kind = DistRule::Lognormal;
    r.a = d.mu + std::log(factor);
    r.b = d.sigma;
  }
  if (!d.clip.empty()) {
    r.bound = d.clip == "redraw" ? DistRule::Redraw : DistRule::Clip;
    if (d.min) r.min = *d.min * factor;
    if (d.max) r.max = *d.max * factor;
    if (!d.min && !d.max) (r.mean() >= 0 ? r.min : r.max) = 0.0;
  }
  return r;
}

double tau_of(const PointParameters& p, int receptor) { return receptor == 0 ? p.tau_e : p.tau_i; }

int receptor_of(const ProjectionConfig& pc, const DistRule& w, const PointParameters& p) {
  if (p.receptors() == 1) {
    if (pc.receptor == "inhibitory")
      throw std::invalid_argument("receptor = \"inhibitory\": this model has one input (signed weights)");
    return 0;
  }
  if (pc.receptor.empty()) return w.mean() < 0 ? 1 : 0;
  return pc.receptor == "inhibitory" ? 1 : 0;
}

[[noreturn]] void fail_at(const std::string& where, const std::string& what) {
  throw std::invalid_argument(fmt::format("{}: {}", where, what));
}

}  // namespace

spiking::ProjectionNetwork scaled_projection_network(const PopulationNetworkConfig& c, const PointParameters& p,
                                                     std::uint64_t seed) {
  spiking::ProjectionNetwork net;
  net.seed = seed;
  net.dt_ms = p.exchange_dt();
  std::int64_t first = 0;
  for (const auto& pc : c.populations) {
    const std::int64_t size = std::max<std::int64_t>(1, round_even(double(pc.size) * c.n_scaling));
    net.populations.push_back({pc.name, first, size, 0});
    first += size;
  }
  const double weight_factor = 1.0 / std::sqrt(c.k_scaling);
  for (const auto& pc : c.projections) {
    spiking::ProjectionSpec s;
    s.name = pc.name;
    s.source = population_index(c, pc.source);
    s.target = population_index(c, pc.target);
    s.autapses = pc.autapses;
    s.multapses = pc.multapses;
    s.weight = rule_of(pc.weight, weight_factor);
    s.delay_ms = rule_of(pc.delay, 1.0);
    try {
      s.receptor = receptor_of(pc, s.weight, p);
    } catch (const std::invalid_argument& e) {
      fail_at(pc.where, e.what());
    }
    const bool conductance = p.synapse == SynapseKind::ConductanceExp || p.synapse == SynapseKind::ConductanceAlpha;
    if (conductance && s.weight.lowest() < 0)
      fail_at(pc.where, fmt::format("projection {}: weights can be {} nS; conductances are >= 0 (inhibition is "
                                    "receptor = \"inhibitory\"; bound a distribution with clip)",
                                    pc.name, s.weight.lowest()));
    if (pc.rule == "fixed_total_number") {
      s.rule = spiking::ConnectionRule::FixedTotalNumber;
      s.count = round_even(double(pc.count) * c.n_scaling * c.k_scaling);
    } else if (pc.rule == "fixed_indegree") {
      s.rule = spiking::ConnectionRule::FixedIndegree;
      s.count = round_even(double(pc.count) * c.k_scaling);
    } else if (pc.rule == "fixed_outdegree") {
      s.rule = spiking::ConnectionRule::FixedOutdegree;
      s.count = round_even(double(pc.count) * c.k_scaling);
    } else if (pc.rule == "pairwise_bernoulli") {
      s.rule = spiking::ConnectionRule::PairwiseBernoulli;
      s.probability = pc.probability * c.k_scaling / c.n_scaling;  // the in-degree scales with k_scaling
      if (s.probability > 1)
        fail_at(pc.where, fmt::format("p = {} at k_scaling / n_scaling = {} exceeds 1", pc.probability,
                                      c.k_scaling / c.n_scaling));
    } else if (pc.rule == "one_to_one") {
      s.rule = spiking::ConnectionRule::OneToOne;
    } else {
      s.rule = spiking::ConnectionRule::AllToAll;
    }
    try {  // each projection checked on its own, so that the message names its table
      spiking::check_projection(net, s);
    } catch (const std::invalid_argument& e) {
      fail_at(pc.where, e.what());
    }
    net.projections.push_back(std::move(s));
  }
  spiking::check_projection_network(net);
  return net;
}

std::vector<double> scaling_compensation(const PopulationNetworkConfig& c, const PointParameters& p) {
  std::vector<double> delta(c.populations.size(), 0.0);
  if (c.k_scaling >= 1) return delta;
  if (p.synapse != SynapseKind::CurrentExp)
    throw std::invalid_argument("network.k_scaling < 1 compensates the lost input with a current, which needs "
                                "current synapses (synapse = \"current_exp\")");
  const double keep = 1.0 - std::sqrt(c.k_scaling);
  const auto rate = [&](int k) {
    const PopulationConfig& pc = c.populations[k];
    if (!pc.expected_rate)
      fail_at(pc.where, fmt::format("population {}: expected_rate (Hz at full scale) is needed with k_scaling < 1: the "
                                    "input the scaling removes is given back as a current of its mean",
                                    pc.name));
    return *pc.expected_rate;
  };
  PopulationNetworkConfig full = c;  // in-degrees and mean weights at full scale
  full.n_scaling = full.k_scaling = 1;
  const spiking::ProjectionNetwork net = scaled_projection_network(full, p, 0);
  for (std::size_t k = 0; k < net.projections.size(); ++k) {
    const spiking::ProjectionSpec& s = net.projections[k];
    const double in_degree = net.expected_synapses(k) / double(net.populations[s.target].size);
    // mean input (model units of the weight, mV here) = tau (s) * in-degree * weight * rate
    delta[s.target] += keep * tau_of(p, s.receptor) * 1e-3 * in_degree * s.weight.mean() * rate(s.source);
  }
  for (std::size_t y = 0; y < c.populations.size(); ++y)
    if (const auto& d = c.populations[y].poisson)
      delta[y] += keep * tau_of(p, 0) * 1e-3 * double(d->indegree) * d->weight * d->rate_hz;
  for (double& d : delta) d *= p.g_l;  // mV (R_m I) -> pA
  return delta;
}

void apply_populations(const PopulationNetworkConfig& c, const spiking::ProjectionNetwork& net, PointSetup& setup) {
  const std::vector<double> compensation = scaling_compensation(c, setup.params);
  const std::uint64_t initial_key = spiking::stream_key(net.seed, spiking::Purpose::Initial);
  const double weight_factor = 1.0 / std::sqrt(c.k_scaling);
  bool driven = false;
  for (const auto& pc : c.populations) driven = driven || (pc.poisson && pc.poisson->indegree > 0);
  const auto n = static_cast<std::size_t>(net.neurons());
  if (driven) {
    setup.poisson_lambda.assign(n, 0.0);
    setup.poisson_weight.assign(n, 0.0);
  }
  for (std::size_t k = 0; k < c.populations.size(); ++k) {
    const PopulationConfig& pc = c.populations[k];
    const spiking::Population& pop = net.populations[k];
    const DistRule v0 = pc.v0 ? rule_of(*pc.v0, 1.0) : DistRule();
    for (std::int64_t i = pop.first; i < pop.first + pop.size; ++i) {
      const auto j = static_cast<std::size_t>(i);
      if (pc.v0) setup.initial[V][j] = v0.at(initial_key, static_cast<std::uint64_t>(i));
      setup.i_ext[j] += pc.i_e + compensation[k];
      if (pc.poisson && pc.poisson->indegree > 0) {
        const double sources = double(round_even(double(pc.poisson->indegree) * c.k_scaling));
        setup.poisson_lambda[j] = sources * pc.poisson->rate_hz * setup.params.exchange_dt() * 1e-3;
        setup.poisson_weight[j] = pc.poisson->weight * weight_factor;
      }
    }
  }
  setup.populations = net.populations;
  setup.projections = net;
}

}  // namespace kbrain::point
