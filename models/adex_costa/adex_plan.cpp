#include "models/adex_costa/adex_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/text/int_pairs.hpp"
#include "models/adex_costa/adex_schema.hpp"
#include "models/runtime/memory_statement.hpp"
#include "models/runtime/record_plan.hpp"

namespace kbrain::adex {

const char* to_string(Connectivity c) {
  return c == Connectivity::All ? "all" : c == Connectivity::Half ? "half" : "file";
}
const char* to_string(Parity p) { return p == Parity::PostEven ? "post_even" : p == Parity::PreEven ? "pre_even" : "both_even"; }
const char* to_string(PostEvents e) { return e == PostEvents::Model ? "model" : e == PostEvents::Imposed ? "imposed" : "none"; }
const char* to_string(Pattern p) {
  switch (p) {
    case Pattern::All: return "all";
    case Pattern::Even: return "even";
    case Pattern::Model: return "model";
    case Pattern::PoissonGaussian: return "poisson_gaussian";
    case Pattern::File: return "file";
  }
  return "";
}

bool AdexPlan::connected(std::int64_t i, std::int64_t j) const {
  return connectivity == Connectivity::File ? conn[static_cast<std::size_t>(i * n_post + j)] != 0
                                            : connected_by_rule(connectivity, parity, i, j);
}

double AdexPlan::position_at(std::int64_t step) const {
  std::int64_t end = 0;
  for (std::size_t k = 0; k < positions.size(); ++k) {
    if (k < phase_steps.size()) end += phase_steps[k];
    if (k + 1 == positions.size() || step < end) return double(positions[k]);
  }
  return 25;
}

namespace {

template <class T>
T pick(const std::string& text, const std::vector<std::pair<const char*, T>>& names) {
  for (const auto& [name, value] : names)
    if (text == name) return value;
  return names.front().second;
}

void read_network(const ExperimentConfig& cfg, const PlanRequest& request, AdexPlan& plan) {
  const ModelSettings& s = cfg.settings;
  plan.mxm = s.text("network.architecture") == "mxm";
  const std::int64_t neurons = request.size > 0 ? request.size : s.integer("network.neurons");
  const std::int64_t inputs = s.integer("network.inputs");
  if (plan.mxm && inputs != 0)
    s.fail("network.inputs", "must be 0 (or absent) with architecture = \"mxm\": the n AdEx neurons are the inputs");
  if (!plan.mxm && inputs < 1) s.fail("network.inputs", "must be >= 1 with architecture = \"nxm\" (the spike sources)");
  plan.n_post = neurons;
  plan.n_pre = plan.mxm ? neurons : inputs;
  if (request.density > 0) {  // compare.densities: the inputs per target of an nxm network
    if (plan.mxm || request.density != std::floor(request.density))
      throw ConfigError(fmt::format("{}: compare.densities sets network.inputs (whole numbers) of an nxm network",
                                    cfg.source.string()));
    plan.n_pre = static_cast<std::int64_t>(request.density);
  }
  if (plan.n_pre > std::numeric_limits<std::int64_t>::max() / 64 / plan.n_post)
    s.fail("network.neurons", fmt::format("gives {} x {} synapse slots, which overflows 64-bit byte indexing",
                                          plan.n_pre, plan.n_post));

  plan.connectivity = pick<Connectivity>(s.text("network.connectivity"), {{"all", Connectivity::All},
                                                                           {"half", Connectivity::Half},
                                                                           {"file", Connectivity::File}});
  if (s.given("network.parity") && plan.connectivity != Connectivity::Half)
    s.fail("network.parity", "applies only to connectivity = \"half\"");
  if (s.given("network.file") && plan.connectivity != Connectivity::File)
    s.fail("network.file", "applies only to connectivity = \"file\"");
  plan.parity = pick<Parity>(s.text("network.parity"), {{"post_even", Parity::PostEven},
                                                        {"pre_even", Parity::PreEven},
                                                        {"both_even", Parity::BothEven}});
  if (plan.connectivity == Connectivity::Half && plan.parity != Parity::PreEven && plan.n_post < 2)
    s.fail("network.parity", fmt::format("= \"{}\" leaves one postsynaptic neuron: half connectivity by the "
                                         "postsynaptic parity needs neurons >= 2",
                                         to_string(plan.parity)));
  if (plan.connectivity == Connectivity::Half && plan.parity != Parity::PostEven && plan.n_pre < 2)
    s.fail("network.parity", fmt::format("= \"{}\" with one presynaptic row connects at most one row; use post_even",
                                         to_string(plan.parity)));
  if (plan.connectivity == Connectivity::File) {
    if (!s.given("network.file")) s.fail("network.connectivity", "= \"file\" needs network.file");
    if (request.size > 0)
      throw ConfigError(fmt::format("{}: compare.sizes cannot resize a network read from network.file",
                                    cfg.source.string()));
    plan.host_bytes += double(plan.synapse_slots());  // one connection flag per slot, checked before it is built
    // On a CPU backend the run's synapses are host memory too, beside these flags: at least 4 floats and a flag a slot
    // (AdexState::bytes_per_slot). The file fixes the network's size: no smaller one is suggested.
    const double state = request.state_on_host ? double(plan.synapse_slots()) * (4.0 * sizeof(float) + 1.0) : 0.0;
    require_host_bytes(plan.host_bytes + state, cfg.source.string(),
                       fmt::format("network.file: the {} x {} connection flags{}", plan.n_pre, plan.n_post,
                                   state > 0 ? " and, on this CPU backend, the synapses (float, at least)" : ""));
    plan.conn.assign(static_cast<std::size_t>(plan.synapse_slots()), 0);
    text::read_int_pairs(
        s.file("network.file"), "pre post",
        [&](long long i, long long j) {
          if (i < 0 || i >= plan.n_pre) return fmt::format("pre {} is out of range [0, {})", i, plan.n_pre);
          if (j < 0 || j >= plan.n_post) return fmt::format("post {} is out of range [0, {})", j, plan.n_post);
          return std::string();
        },
        [&](long long i, long long j) { plan.conn[static_cast<std::size_t>(i * plan.n_post + j)] = 1; });
  }
  if (plan.mxm && s.given("network.post_events"))
    s.fail("network.post_events", "applies only to architecture = \"nxm\" (in mxm the neurons' flags are the post events)");
  plan.post_events = pick<PostEvents>(s.text("network.post_events"), {{"model", PostEvents::Model},
                                                                      {"imposed", PostEvents::Imposed},
                                                                      {"none", PostEvents::None}});
  if (plan.mxm) plan.post_events = PostEvents::Model;
}

void read_spikes(const ExperimentConfig& cfg, AdexPlan& plan) {
  const ModelSettings& s = cfg.settings;
  plan.pattern = pick<Pattern>(s.text("spikes.pattern"), {{"all", Pattern::All},
                                                          {"even", Pattern::Even},
                                                          {"model", Pattern::Model},
                                                          {"poisson_gaussian", Pattern::PoissonGaussian},
                                                          {"file", Pattern::File}});
  const bool inputs_only = plan.pattern == Pattern::PoissonGaussian || plan.pattern == Pattern::File;
  if (plan.mxm && inputs_only)
    s.fail("spikes.pattern", fmt::format("= \"{}\" drives spike sources: it needs architecture = \"nxm\"",
                                         to_string(plan.pattern)));
  if (!plan.mxm && plan.pattern == Pattern::Model)
    s.fail("spikes.pattern", "= \"model\" needs architecture = \"mxm\" (spike sources have no dynamics)");
  if (plan.post_events == PostEvents::Imposed && inputs_only)
    s.fail("network.post_events", "= \"imposed\" imposes the all/even pattern on the targets; with spikes.pattern = "
                                  "\"" + std::string(to_string(plan.pattern)) + "\" use model or none");
  for (const char* key : {"spikes.rate_on_hz", "spikes.rate_off_hz", "spikes.radius", "spikes.positions",
                          "spikes.phase_steps", "spikes.seed"})
    if (s.given(key) && plan.pattern != Pattern::PoissonGaussian)
      s.fail(key, "applies only to pattern = \"poisson_gaussian\"");
  if (s.given("spikes.file") != (plan.pattern == Pattern::File))
    s.fail(s.given("spikes.file") ? "spikes.file" : "spikes.pattern",
           s.given("spikes.file") ? "applies only to pattern = \"file\"" : "= \"file\" needs spikes.file");
  plan.rate_on_hz = s.number("spikes.rate_on_hz");
  plan.rate_off_hz = s.number("spikes.rate_off_hz");
  plan.radius = s.number("spikes.radius");
  plan.seed = static_cast<std::uint64_t>(s.integer("spikes.seed"));
  plan.positions = s.integers("spikes.positions");
  plan.phase_steps = s.integers("spikes.phase_steps");
  if (plan.positions.empty()) plan.positions = {25};
  if (plan.phase_steps.size() + 1 != plan.positions.size() && plan.phase_steps.size() != plan.positions.size())
    s.fail("spikes.phase_steps", fmt::format("must list the steps of each of the {} positions (the last may be "
                                             "omitted: it lasts to the end); got {} entries",
                                             plan.positions.size(), plan.phase_steps.size()));
  if (plan.pattern == Pattern::File) {
    std::vector<std::pair<std::int64_t, std::int32_t>> events;  // (step, source)
    text::read_int_pairs(
        s.file("spikes.file"), "source step",
        [&](long long src, long long step) {
          if (src < 0 || src >= plan.n_pre) return fmt::format("source {} is out of range [0, {})", src, plan.n_pre);
          if (step < 0) return fmt::format("step {} must be >= 0", step);
          return std::string();
        },
        [&](long long src, long long step) { events.emplace_back(step, static_cast<std::int32_t>(src)); });
    std::sort(events.begin(), events.end());
    plan.host_bytes += 8.0 * double(plan.steps + 1) + 4.0 * double(events.size());
    require_host_bytes(plan.host_bytes, cfg.source.string(),
                       fmt::format("spikes.file: the spike lists of {} steps", plan.steps));
    plan.spike_offsets.assign(static_cast<std::size_t>(plan.steps + 1), 0);
    for (const auto& [step, src] : events)
      if (step < plan.steps) {
        ++plan.spike_offsets[static_cast<std::size_t>(step + 1)];
        plan.spike_sources.push_back(src);
      }
    for (std::size_t k = 1; k < plan.spike_offsets.size(); ++k) plan.spike_offsets[k] += plan.spike_offsets[k - 1];
  }
}

void read_record(const ExperimentConfig& cfg, AdexPlan& plan, bool resized) {
  plan.probe_var = SYN_A;
  plan.voltage_vars = {V_M};  // mV (adex_parameters.hpp); recorded only with neuron-indexed variables
  if (!apply_record_choices(cfg.record, plan) || resized) return;  // resized runs (compare) record no traces
  record_variables(cfg.record, kAdexVarNames, plan);
  bool neuron_vars = false, synapse_vars = false;
  for (const int v : plan.trace_vars) (is_synapse_var(v) ? synapse_vars : neuron_vars) = true;
  if (neuron_vars && synapse_vars)
    throw ConfigError(fmt::format("{}: record.variables mixes neuron variables (indexed by neuron) and synapse "
                                  "variables (indexed by synapse id pre * {} + post); record one kind per run",
                                  cfg.source.string(), plan.n_post));
  record_indices(cfg, synapse_vars ? plan.synapse_slots() : plan.n_post,
                 synapse_vars ? "synapse variables" : "neuron variables", plan);
}

}  // namespace

AdexPlan make_adex_plan(const ExperimentConfig& cfg, const PlanRequest& request) {
  AdexPlan plan;
  plan.config = &cfg;
  adex_parameter_table().apply_all(plan.params, cfg.parameter_overrides);
  plan.steps = request.steps > 0 ? request.steps : cfg.steps;
  plan.dt_ms = cfg.dt;
  plan.device_budget = cfg.settings.number("simulation.device_budget");
  read_network(cfg, request, plan);
  read_spikes(cfg, plan);
  std::int64_t connected = 0;
  if (plan.connectivity == Connectivity::File) {
    connected = std::count(plan.conn.begin(), plan.conn.end(), std::uint8_t{1});
  } else {
    const std::int64_t even_pre = (plan.n_pre + 1) / 2, even_post = (plan.n_post + 1) / 2;
    connected = plan.connectivity == Connectivity::All ? plan.synapse_slots()
                : plan.parity == Parity::PostEven     ? plan.n_pre * even_post
                : plan.parity == Parity::PreEven      ? even_pre * plan.n_post
                                                      : even_pre * even_post;
  }
  plan.cells = plan.n_post;
  // The runner checks the neurons for NaN/inf: forward Euler with dt far beyond tauw or C/gL diverges.
  for (const int v : {V_M, V_T, ADAPT_X, I_SYN}) {
    plan.checked_vars.push_back(v);
    plan.checked_var_names.push_back(kAdexVarNames[v]);
  }
  plan.connections = double(connected);
  plan.size_label = fmt::format("{}x{}", plan.n_pre, plan.n_post);
  plan.work_per_step = double(plan.synapse_slots());
  read_record(cfg, plan, request.size > 0);
  return plan;
}

}  // namespace kbrain::adex
