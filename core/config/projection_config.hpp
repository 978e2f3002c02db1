#pragma once
// A spiking network written as populations and projections ([[population]], [[projection]], [network] scale):
// plain data as the experiment file states it, checked for form by projection_config.cpp; the model's setup scales
// it and builds the generator's spec (models/point/projection_setup.cpp). Schema: docs/models/populations.md.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbrain {

// A number, or { dist = "normal" | "uniform" | "lognormal" | "constant", ... } with optional bounds.
struct DistributionConfig {
  std::string dist = "constant";
  double value = 0;                 // constant
  double mean = 0, std = 0;         // normal
  double low = 0, high = 0;         // uniform [low, high)
  double mu = 0, sigma = 0;         // lognormal: exp(N(mu, sigma^2))
  std::string clip;                 // "" (no bounds) | "redraw" (NEST's redraw) | "clamp"
  std::optional<double> min, max;
};

struct PoissonDriveConfig {
  double rate_hz = 0;               // per source
  std::int64_t indegree = 0;        // sources per neuron
  double weight = 0;                // model units, excitatory receptor
};

struct PopulationConfig {
  std::string name;
  std::int64_t size = 0;            // at network scale 1
  std::optional<DistributionConfig> v0;  // initial membrane potential (mV); else the parameter set's
  double i_e = 0;                   // constant current (pA; Izhikevich: input units)
  std::optional<double> expected_rate;   // Hz at scale 1: input compensation when k_scaling < 1
  std::optional<PoissonDriveConfig> poisson;
  std::string where;                // file:line of the table, for later messages
};

struct ProjectionConfig {
  std::string name, source, target;
  std::string rule;                 // fixed_total_number | pairwise_bernoulli | fixed_indegree | fixed_outdegree |
                                    // one_to_one | all_to_all
  std::int64_t count = 0;           // N (fixed_total_number), indegree, outdegree, at scale 1
  double probability = 0;           // p (pairwise_bernoulli)
  bool autapses = true, multapses = true;
  std::string receptor;             // excitatory | inhibitory | "" (from the weight's sign)
  DistributionConfig weight, delay; // model units; ms
  std::string where;
};

struct PopulationNetworkConfig {
  std::vector<PopulationConfig> populations;
  std::vector<ProjectionConfig> projections;
  double n_scaling = 1, k_scaling = 1;  // network.scale sets both
};

}  // namespace kbrain
