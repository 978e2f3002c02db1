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
  // The host network (offsets, a source and a weight per synapse; a random draw also keeps its 8-byte keys) is
  // checked against the host's available memory before it is built; `fits(available)` says the largest network of
  // this topology that would fit.
  const double available = double(host_available_memory_bytes());
  auto require_host = [&](double synapses, double per_synapse, const auto& fits) {
    plan.host_bytes = 8.0 * double(n + 1) + per_synapse * synapses;
    if (available <= 0 || plan.host_bytes <= available) return;
    require_host_bytes(plan.host_bytes, available, cfg.source.string(),
                       fmt::format("[network]: the host network of {} neurons and {:.0f} synapses", n, synapses),
                       fits());
  };
  // Synapses beside the offsets of n neurons: what is left of `available`, `per_synapse` bytes each.
  auto synapses_fit = [&](double per_synapse) {
    return std::max(0.0, std::floor((available - 8.0 * double(n + 1)) / per_synapse));
  };
  Stopwatch build;
  switch (plan.topology) {
    case Topology::Ring:
      require_host(double(n), 8, [&] {
        return fmt::format("at most {} neurons fit (network.neurons)",
                           largest_fitting(n, available, [](std::int64_t k) { return 16.0 * double(k) + 8.0; }));
      });
      plan.network = std::make_shared<HostNetwork>(ring_network(n, w));
      break;
    case Topology::Full:
      if (n > 46340) s.fail("network.neurons", fmt::format("{} neurons fully connected exceed 2^31 synapses", n));
      require_host(double(n) * double(n), 8, [&] {
        return fmt::format("at most {} neurons fully connected fit (network.neurons)",
                           largest_fitting(n, available, [](std::int64_t k) {
                             return 8.0 * double(k + 1) + 8.0 * double(k) * double(k);
                           }));
      });
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
      require_host(synapses, 16, [&] {
        return fmt::format("at most {:.0f} synapses among {} neurons fit (network.synapses)", synapses_fit(16), n);
      });
      plan.network = std::make_shared<HostNetwork>(
          random_network(n, static_cast<std::int64_t>(synapses), static_cast<std::uint64_t>(s.integer("network.seed")), w));
      break;
    }
    case Topology::File:
      require_host(double(file_bytes(s.file("network.file"))) / double(kConnectionRecordBytes), 8, [&] {
        return fmt::format("at most {:.0f} of the file's synapse records fit", synapses_fit(8));
      });
      plan.network = std::make_shared<HostNetwork>(
          read_connection_file(s.file("network.file"), n, s.text("network.weights") == "file", w));
      break;
  }
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
  read_network(cfg, request, plan);
  plan.filter = psc_filter(plan.params, plan.dt_ms);
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
