#pragma once
// The plan of an adex_costa run: validated settings of the dense plastic network, its connectivity rule (or the
// host matrix of a connection file), the presynaptic spike source and the record choices. Built once on the host
// (make_adex_plan), shared by every backend and precision.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/config/experiment_config.hpp"
#include "models/adex_costa/adex_connectivity.hpp"
#include "models/adex_costa/adex_exchange.hpp"
#include "models/adex_costa/adex_parameters.hpp"
#include "models/runtime/run_plan.hpp"

namespace kbrain::adex {

enum class PostEvents { Model, Imposed, None };
enum class Pattern { All, Even, Model, PoissonGaussian, File };

const char* to_string(Connectivity c);
const char* to_string(Parity p);
const char* to_string(PostEvents e);
const char* to_string(Pattern p);

struct AdexPlan : RunPlan {
  AdexCostaParams params;
  bool mxm = true;                   // mxm: rows and columns are the same n AdEx neurons; nxm: inputs -> neurons
  std::int64_t n_pre = 0, n_post = 0;
  Connectivity connectivity = Connectivity::All;
  Parity parity = Parity::PostEven;
  std::vector<std::uint8_t> conn;    // connectivity = file: n_pre x n_post flags, row = presynaptic
  PostEvents post_events = PostEvents::Model;
  Pattern pattern = Pattern::All;
  // poisson_gaussian: source i fires at step n with probability F_i dt, F_i = exp(-((i+1) - pos)^2 / (2 radius^2))
  // (rate_on - rate_off) + rate_off, pos the centre of the phase that holds step n
  double rate_on_hz = 50, rate_off_hz = 3, radius = 5;
  std::vector<std::int64_t> positions, phase_steps;
  std::uint64_t seed = 1;
  // pattern = file: the sources firing at step n are spike_sources[spike_offsets[n] .. spike_offsets[n + 1])
  std::vector<std::int64_t> spike_offsets;
  std::vector<std::int32_t> spike_sources;
  double device_budget = 0;  // bytes the run may use on a GPU (0: the device's free memory)
  // A multi-rank run: the ranks' exchange (each rank holds a contiguous part of the row blocks); null: one process.
  std::shared_ptr<AdexExchange> exchange;

  std::int64_t synapse_slots() const { return n_pre * n_post; }
  bool connected(std::int64_t i, std::int64_t j) const;  // the rule (or the file) on the host
  double position_at(std::int64_t step) const;          // poisson_gaussian: the centre at `step`
};

AdexPlan make_adex_plan(const ExperimentConfig& cfg, const PlanRequest& request);
// The plan keeps a pointer to its experiment: a temporary one would dangle.
AdexPlan make_adex_plan(const ExperimentConfig&& cfg, const PlanRequest& request) = delete;

}  // namespace kbrain::adex
