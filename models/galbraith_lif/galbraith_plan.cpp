#include "models/galbraith_lif/galbraith_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>
#include <limits>

#include "core/timing/stopwatch.hpp"
#include "models/galbraith_lif/galbraith_schema.hpp"
#include "models/runtime/memory_statement.hpp"
#include "models/runtime/record_plan.hpp"

namespace kbrain::galbraith {

const char* to_string(SynapseUpdate u) { return u == SynapseUpdate::Event ? "event" : "agent"; }

std::int64_t study_layout_bytes(std::int64_t neurons, std::int64_t synapses, std::int64_t taps) {
  return 50 * neurons + 24 * synapses + 4 * taps * (neurons + synapses) + 4 * neurons;
}

std::int64_t kbrain_layout_bytes(std::int64_t n, std::int64_t s, std::int64_t taps, SynapseUpdate update,
                                 std::int64_t real) {
  // V, J_stim (Real), refractory end, spike count (int32); offsets (int64); source (int32) and weight per synapse;
  // the filter; then the variant's buffers (galbraith_state.hpp): event: spike flags of two steps and the PSC
  // buffer per neuron; agent: axon and spike flags, J_spike and J_stim, a buffer and a current per
  // synapse.
  const std::int64_t common = n * (2 * real + 8) + 8 * (n + 1) + s * (4 + real) + taps * real;
  if (update == SynapseUpdate::Event) return common + 2 * n + n * taps * real;
  return common + 2 * n + 2 * n * real + s * study_buffer_stride(taps) * real + s * real;
}

double network_host_peak_bytes(Topology topology, std::int64_t neurons, double synapses, std::int64_t taps,
                               SynapseUpdate update, std::int64_t state_real_bytes) {
  const double offsets = 8.0 * double(neurons + 1);
  const double held = offsets + 8.0 * synapses;
  // While it is built: a random draw (galbraith_network.cpp) keeps each drawn pair's 8-byte key in a vector and in a
  // hash set, which reserves two 8-byte buckets a pair and allocates a 16-byte node in a 32-byte heap block, 56 bytes
  // a synapse at most (the dense case draws the fewer pairs left out, then holds them and the kept ones, 16 bytes a
  // synapse, and then the keys beside the sources and weights, 16 too); a connection file is read whole (16 bytes a
  // record) beside the network it fills and a fill cursor per neuron; ring and full fill the held arrays only.
  const double built = topology == Topology::Random ? offsets + 56.0 * synapses
                       : topology == Topology::File ? held + 16.0 * synapses + 8.0 * double(neurons)
                                                    : held;
  const double state =
      state_real_bytes > 0
          ? double(kbrain_layout_bytes(neurons, static_cast<std::int64_t>(synapses), taps, update, state_real_bytes))
          : 0.0;
  return std::max(built, held + state);
}

namespace {

// A file's size; 0 when it cannot be read (its reader then says why).
std::uintmax_t file_bytes(const std::filesystem::path& file) {
  std::error_code ec;
  const std::uintmax_t n = std::filesystem::file_size(file, ec);
  return ec ? 0 : n;
}

Topology topology_of(const std::string& name) {
  return name == "full" ? Topology::Full : name == "random" ? Topology::Random : name == "file" ? Topology::File
                                                                                                : Topology::Ring;
}

void read_network(const ExperimentConfig& cfg, const PlanRequest& request, GalbraithPlan& plan) {
  const ModelSettings& s = cfg.settings;
  plan.topology = topology_of(s.text("network.topology"));
  const bool random = plan.topology == Topology::Random, file = plan.topology == Topology::File;
  for (const char* key : {"network.synapses", "network.seed"})
    if (s.given(key) && !random) s.fail(key, "applies only to topology = \"random\"");
  if (s.given("network.file") != file)
    s.fail(file ? "network.topology" : "network.file",
           file ? "= \"file\" needs network.file" : "applies only to topology = \"file\"");
  if (s.given("network.weights") && !file) s.fail("network.weights", "applies only to topology = \"file\"");
  const std::int64_t n = request.size > 0 ? request.size : s.integer("network.neurons");
  if (n > std::numeric_limits<std::int32_t>::max())
    throw ConfigError(fmt::format("{}: {} neurons: at most 2^31 - 1", cfg.source.string(), n));
  if (request.density > 0 && !random)
    throw ConfigError(fmt::format("{}: compare.densities sets network.synapses of a random network (topology = \"{}\")",
                                  cfg.source.string(), s.text("network.topology")));
  const float w = static_cast<float>(plan.params.weight);
  // The host network, with the generator's temporaries and, where the run's state is host memory too (a CPU backend),
  // that state (in float, the least a run takes) beside it, is checked against the memory available before any of it
  // is built; the refusal says the largest network of this topology that fits. The run's own check
  // (GalbraithSimulation::memory) follows for its precision on its backend.
  const double available = double(host_available_memory_bytes());
  const std::int64_t state_real = request.state_on_host ? 4 : 0;
  auto require_host = [&](double synapses) {
    const auto peak = [&](std::int64_t neurons, double synapse_count) {
      return network_host_peak_bytes(plan.topology, neurons, synapse_count, plan.taps(), plan.update, state_real);
    };
    const double need = peak(n, synapses);
    if (available <= 0 || need <= available) return;
    require_host_bytes(need, available, cfg.source.string(),
                       fmt::format("[network]: the host network of {} neurons and {:.0f} synapses{}", n, synapses,
                                   state_real ? " and, on this CPU backend, the run's state (float, at least)" : ""),
                       largest_network_text(plan.topology, n, synapses, available, peak));
  };
  Stopwatch build;
  switch (plan.topology) {
    case Topology::Ring:
      require_host(double(n));
      plan.network = std::make_shared<HostNetwork>(ring_network(n, w));
      break;
    case Topology::Full:
      if (n > 46340) s.fail("network.neurons", fmt::format("{} neurons fully connected exceed 2^31 synapses", n));
      require_host(double(n) * double(n));
      plan.network = std::make_shared<HostNetwork>(full_network(n, w));
      break;
    case Topology::Random: {
      double synapses = request.density > 0 ? request.density : double(s.integer("network.synapses"));
      if (synapses != std::floor(synapses))
        throw ConfigError(fmt::format("{}: compare.densities are synapse counts S (whole numbers); got {}",
                                      cfg.source.string(), synapses));
      const double pairs = double(n) * double(n);
      if (synapses < 1 || synapses > pairs || synapses > double(std::numeric_limits<std::int32_t>::max()))
        s.fail("network.synapses", fmt::format("must be in [1, min(N^2, 2^31 - 1)] = [1, {:.0f}] for N = {} (got {:.0f})",
                                               std::min(pairs, double(std::numeric_limits<std::int32_t>::max())), n,
                                               synapses));
      require_host(synapses);
      plan.network = std::make_shared<HostNetwork>(
          random_network(n, static_cast<std::int64_t>(synapses), static_cast<std::uint64_t>(s.integer("network.seed")), w));
      break;
    }
    case Topology::File:
      require_host(double(file_bytes(s.file("network.file"))) / double(kConnectionRecordBytes));
      plan.network = std::make_shared<HostNetwork>(
          read_connection_file(s.file("network.file"), n, s.text("network.weights") == "file", w));
      break;
  }
  plan.host_bytes = 8.0 * double(n + 1) + 8.0 * double(plan.network->synapses());  // what the plan holds
  plan.network_build_s = build.seconds();
}

void read_record(const ExperimentConfig& cfg, GalbraithPlan& plan, bool resized) {
  plan.probe_var = V_M;
  if (!apply_record_choices(cfg.record, plan) || resized) return;  // resized runs (compare) record no traces
  record_variables(cfg.record, kGalbraithVarNames, plan);
  record_indices(cfg, plan.neurons(), "neurons", plan);
}

}  // namespace

GalbraithPlan make_galbraith_plan(const ExperimentConfig& cfg, const PlanRequest& request) {
  GalbraithPlan plan;
  plan.config = &cfg;
  galbraith_parameter_table().apply_all(plan.params, cfg.parameter_overrides);
  plan.steps = request.steps > 0 ? request.steps : cfg.steps;
  plan.dt_ms = cfg.dt;
  const ModelSettings& s = cfg.settings;
  if (plan.steps >= std::numeric_limits<std::int32_t>::max() / 2)
    throw ConfigError(fmt::format("{}: {} steps: at most 2^30 (steps and refractory ends are 32-bit on the device)",
                                  cfg.source.string(), plan.steps));
  const std::string update = request.variant.empty() ? s.text("simulation.synapse_update") : request.variant;
  plan.update = update == "agent" ? SynapseUpdate::Agent : SynapseUpdate::Event;
  plan.stage_timing = s.flag("simulation.stage_timing");
  plan.filter = psc_filter(plan.params, plan.dt_ms);  // before the network: its taps size the run's state
  read_network(cfg, request, plan);
  plan.refractory_steps = refractory_steps(plan.params, plan.dt_ms);
  const std::vector<std::int64_t> stimulated = s.given("stimulus.neurons") ? s.integers("stimulus.neurons")
                                                                           : std::vector<std::int64_t>{0};
  for (const auto i : stimulated) {
    if (i >= plan.neurons())
      s.fail("stimulus.neurons", fmt::format("neuron {} is out of range [0, {})", i, plan.neurons()));
    plan.stimulated.push_back(static_cast<std::int32_t>(i));
  }
  plan.cells = plan.neurons();
  plan.checked_vars = {V_M};
  plan.checked_var_names = {kGalbraithVarNames[V_M]};
  plan.connections = double(plan.synapses());
  plan.size_label = plan.topology == Topology::Random || plan.topology == Topology::File
                        ? fmt::format("{} N={} S={} {}", to_string(plan.topology), plan.neurons(), plan.synapses(), update)
                        : fmt::format("{} N={} {}", to_string(plan.topology), plan.neurons(), update);
  // A step reads every neuron and every synapse; the agent mapping also runs L threads per synapse.
  plan.work_per_step = double(plan.neurons() + plan.synapses()) *
                       (plan.update == SynapseUpdate::Agent ? double(plan.taps()) / 8.0 : 1.0);
  read_record(cfg, plan, request.size > 0);
  return plan;
}

}  // namespace kbrain::galbraith
