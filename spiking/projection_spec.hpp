#pragma once
// A spiking network as populations and projections (the vocabulary of NEST, PyNN and SONATA; docs/models/
// populations.md): named populations in index order, and projections from a source to a target population with a
// connection rule, a receptor, and weight and delay distributions. Plain host data, already scaled (the experiment's
// network.scale is applied by the model's setup); the generator (spiking/projection_generation.hpp) makes every
// synapse from counter draws keyed on (seed, projection, synapse), so every backend builds the same network.
#include <cstdint>
#include <string>
#include <vector>

#include "spiking/distribution.hpp"
#include "spiking/synapse_network.hpp"

namespace kbrain::spiking {

// NEST's rule names.
enum class ConnectionRule : int {
  FixedTotalNumber = 0,   // `total` synapses, source and target uniform and independent (with replacement)
  PairwiseBernoulli = 1,  // each (source, target) pair with probability p
  FixedIndegree = 2,      // `count` sources drawn per target
  FixedOutdegree = 3,     // `count` targets drawn per source
  OneToOne = 4,           // source i -> target i (equal sizes)
  AllToAll = 5,           // every pair
};

struct ProjectionSpec {
  std::string name;               // "SOURCE->TARGET" unless named
  int source = 0, target = 0;     // population indices
  ConnectionRule rule = ConnectionRule::FixedTotalNumber;
  std::int64_t count = 0;         // total (fixed_total_number), in-degree or out-degree
  double probability = 0;         // pairwise_bernoulli
  bool autapses = true;           // may a neuron connect to itself (source == target population only)
  bool multapses = true;          // may a pair have several synapses (rules with a count)
  int receptor = 0;               // 0 excitatory, 1 inhibitory (model with one receptor: 0)
  DistRule weight;                // model units (current_exp LIF: mV, R_m times the current jump)
  DistRule delay_ms;              // ms; rounded to steps as NEST does: floor(d / dt + 0.5)
};

struct ProjectionNetwork {
  std::vector<Population> populations;  // contiguous, in index order
  std::vector<ProjectionSpec> projections;
  std::uint64_t seed = 1;
  double dt_ms = 0.1;

  std::int64_t neurons() const {
    return populations.empty() ? 0 : populations.back().first + populations.back().size;
  }
  // Synapses of projection k: exact for every rule but pairwise_bernoulli (its mean).
  double expected_synapses(std::size_t k) const;
  double expected_synapses(const ProjectionSpec& p) const;  // p: one of this network's, or one to be added
  double expected_synapses() const;
  // The same, bounded above (Bernoulli: mean + 8 standard deviations), for memory plans.
  double synapse_bound() const;
  // The largest delay in steps any synapse can get.
  std::int32_t max_delay_steps() const;
};

// Delay in steps of a delay in ms >= 0, as NEST's Time::delay_ms_to_steps: floor(d * (1 / dt) + 0.5) (a product with
// steps per ms, not a quotient: 0.15 ms at 0.1 ms is 2 steps, where 0.15 / 0.1 + 0.5 would round down to 1; spelled
// unfused for the device; truncation is floor here).
KBRAIN_HOST_DEVICE inline std::int32_t delay_steps(double delay_ms, double dt_ms) {
  return static_cast<std::int32_t>(affine_unfused(0.5, delay_ms, 1.0 / dt_ms));
}

// Checks every index, size and rule option (throws std::invalid_argument naming the projection).
void check_projection_network(const ProjectionNetwork& n);
// The same for one projection of (or for) network n.
void check_projection(const ProjectionNetwork& n, const ProjectionSpec& p);

const char* to_string(ConnectionRule r);

}  // namespace kbrain::spiking
