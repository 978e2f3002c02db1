#include "models/point/point_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "backends/hardware_info.hpp"
#include "core/timing/stopwatch.hpp"
#include "models/point/point_schema.hpp"
#include "models/point/projection_setup.hpp"
#include "models/runtime/memory_statement.hpp"
#include "spiking/network_memory.hpp"

namespace kbrain::point {

namespace {

point::Integrator parse_integrator(const std::string& s) {
  if (s == "euler" || s == "forward_euler") return point::Integrator::Euler;
  if (s == "exponential_euler") return point::Integrator::ExponentialEuler;
  if (s == "exact") return point::Integrator::Exact;
  if (s == "rk4") return point::Integrator::Rk4;
  return point::Integrator::NetM;
}

point::SynapseKind parse_synapse(const std::string& s) {
  if (s == "conductance_alpha") return point::SynapseKind::ConductanceAlpha;
  if (s == "current_exp") return point::SynapseKind::CurrentExp;
  if (s == "delta") return point::SynapseKind::Delta;
  return point::SynapseKind::ConductanceExp;
}

// cortex_hh: [model] gating / eai / lut / tpm -> parameters, with the checks the kernels rely on.
void apply_cortex_methods(const ExperimentConfig& cfg, point::PointParameters& p, bool network_dt_given) {
  const SpikingConfig& s = cfg.spiking;
  const std::string file = cfg.source.string();
  p.gating = s.gating == "wang2012" ? 1 : 0;
  const bool eai = s.eai.value_or(false);
  if (!eai) p.network_dt = 0.0;
  else if (!network_dt_given) p.network_dt = 1.0;
  p.lut = s.lut.value_or(false);
  p.tpm = s.tpm.value_or(false);
  if (eai) {
    const double ratio = p.network_dt / p.dt;
    if (!(ratio >= 1) || std::fabs(ratio - std::round(ratio)) > 1e-6)
      throw ConfigError(fmt::format("{}: model.parameters.network_dt = {} must be a whole multiple of dt = {}", file,
                                    p.network_dt, p.dt));
  }
  if (p.tpm && p.substeps() < p.tpm_k + 1 + p.tpm_m)
    throw ConfigError(fmt::format("{}: model.tpm needs model.eai with at least tpm_k + 1 + tpm_m = {} sub-steps per "
                                  "network step (has {})", file, p.tpm_k + 1 + p.tpm_m, p.substeps()));
  if (p.tpm && p.gating == 1 && p.integrator == point::Integrator::Euler)
    fmt::print(stderr, "note: {}: tpm with gating = \"wang2012\" and forward Euler: the study's tau_m (~0.0125 ms) "
                       "makes the inner steps oscillate and the projection inaccurate; use exponential_euler "
                       "(docs/models/cortex-hh.md)\n", file);
  if (p.lut && !(p.lut_v_max > p.lut_v_min + 2 * p.lut_dv))
    throw ConfigError(fmt::format("{}: model.parameters: lut_v_max must exceed lut_v_min by at least 2 lut_dv", file));
  if (p.delay_max < p.delay_min)
    throw ConfigError(fmt::format("{}: model.parameters: delay_max < delay_min", file));
  const double step_ms = p.exchange_dt();
  const double whole = p.delay_min / step_ms;
  if (p.delay_min < step_ms - 1e-9 || std::fabs(whole - std::round(whole)) > 1e-6)
    throw ConfigError(fmt::format("{}: model.parameters.delay_min = {} ms must be a whole number of network steps "
                                  "({} ms)", file, p.delay_min, step_ms));
}

// A message that names a table (file:line: ...) as it is, any other prefixed with the file.
std::string in_file(const ExperimentConfig& cfg, const std::string& what) {
  const std::string file = cfg.source.string();
  return what.rfind(file + ":", 0) == 0 ? what : file + ": " + what;
}

spiking::WeightSpec to_spec(const SpikingWeightConfig& w) { return {w.kind, w.value, w.low, w.high}; }

// The plan's per-neuron host arrays (initial values, cell parameters, drive: at most kHostValuesPerNeuron doubles
// each) must fit the host's available memory, measured before anything is allocated. Where the run's state lives in
// host memory too (a CPU backend), so must the synapses the network will keep (10 bytes each, at least: target,
// weight, packed delay): a network far too large is then refused here, before its setup arrays exist, instead of
// after gigabytes of them. The whole network is checked against the simulating backend when the run starts
// (spiking/network_memory.hpp).
constexpr double kHostValuesPerNeuron = 12;
constexpr double kKeptBytesPerSynapse = 10;
double host_setup_bytes(const spiking::NetworkSpec& ns, bool state_on_host, double more_synapses = 0) {
  return kHostValuesPerNeuron * 8.0 * double(ns.neurons) +
         (state_on_host ? kKeptBytesPerSynapse * (spiking::synapse_bound(ns) + more_synapses) : 0.0);
}
// A population network: refused with the scale that fits (neurons scale with n_scaling, synapses with
// n_scaling * k_scaling; network.scale sets both).
void require_population_memory(const ExperimentConfig& cfg, const spiking::NetworkSpec& ns,
                               const spiking::ProjectionNetwork& net, bool state_on_host) {
  const double need = host_setup_bytes(ns, state_on_host, net.synapse_bound());
  const double available = double(host_available_memory_bytes());
  if (available <= 0 || need <= available) return;
  const PopulationNetworkConfig& c = *cfg.spiking.population_network;
  throw NotEnoughMemory(fmt::format("{}: [network]: {} neurons{} need {:.2f} GiB of host memory but {:.2f} GiB are "
                                "available (measured before the run allocated anything); about network.scale = {:.3g} "
                                "fits",
                                cfg.source.string(), ns.neurons,
                                state_on_host ? fmt::format(" and, on this CPU backend, their {:.4g} synapses",
                                                            net.synapse_bound())
                                              : std::string(),
                                need / 1073741824.0, available / 1073741824.0,
                                std::min(c.n_scaling, c.k_scaling) * std::sqrt(available / need)));
}
void require_host_setup_memory(const ExperimentConfig& cfg, const spiking::NetworkSpec& ns, bool state_on_host) {
  const double need = host_setup_bytes(ns, state_on_host);
  const double available = double(host_available_memory_bytes());
  if (available <= 0 || need <= available) return;
  // the largest network of the same rule (the excitatory share and every other setting kept) that passes this check
  const auto sized = [&](std::int64_t n) {
    spiking::NetworkSpec t = ns;
    t.neurons = n;
    t.excitatory = static_cast<std::int64_t>(double(ns.excitatory) * double(n) / double(std::max<std::int64_t>(1, ns.neurons)));
    if (t.connectivity == "fixed_in_degree") t.in_degree = std::min(ns.in_degree, std::max<std::int64_t>(0, n - 1));
    return t;
  };
  std::int64_t lo = 0, hi = ns.neurons;  // host_setup_bytes(sized(lo)) fits, sized(hi) does not
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (host_setup_bytes(sized(mid), state_on_host) <= available ? lo : hi) = mid;
  }
  throw NotEnoughMemory(fmt::format("{}: [network]: {} neurons need {:.2f} GiB of host memory for their initial values "
                                "and drive{} but {:.2f} GiB are available (measured before the run allocated "
                                "anything); at most {} neurons of this network's rule fit",
                                cfg.source.string(), ns.neurons, need / 1073741824.0,
                                state_on_host ? fmt::format(" and, on this CPU backend, their {:.4g} synapses",
                                                            spiking::synapse_bound(ns))
                                              : std::string(),
                                available / 1073741824.0, lo));
}

}  // namespace

SpikingPlan make_spiking_plan(const ExperimentConfig& cfg, const PlanRequest& request) {
  const std::int64_t size_override = request.size;
  const std::int64_t steps_override = request.steps;
  if (request.density > 0)
    throw ConfigError(cfg.source.string() + ": a density override (--density, --densities) applies to generated "
                                            "gap-junction networks (uniform, gaussian3d)");
  const SpikingConfig& s = cfg.spiking;
  point::NamedSet set = point::point_parameter_set(s.parameter_set);
  point::PointParameters& p = set.params;
  if (s.dt_given) p.dt = cfg.dt;
  if (!s.integrator.empty()) p.integrator = parse_integrator(s.integrator);
  if (!s.synapse.empty()) p.synapse = parse_synapse(s.synapse);
  if (!s.threshold.empty()) p.threshold_inclusive = s.threshold == "inclusive";
  if (!s.refractory_rule.empty()) p.refractory_nest = s.refractory_rule == "nest";
  bool network_dt_given = false;
  try {
    point_parameter_table(cfg.model).apply_all(p, cfg.parameter_overrides);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(cfg.source.string() + ": model.parameters: " + e.what());
  }
  for (const auto& [k, v] : cfg.parameter_overrides) network_dt_given = network_dt_given || k == "network_dt";
  if (p.model == point::NeuronModel::CortexHh) apply_cortex_methods(cfg, p, network_dt_given);
  const bool conductance = p.synapse == point::SynapseKind::ConductanceExp ||
                           p.synapse == point::SynapseKind::ConductanceAlpha;
  if (p.integrator == point::Integrator::Exact && conductance && p.model == point::NeuronModel::Lif)
    fmt::print(stderr, "note: {}: integrator \"exact\" with conductance synapses runs as exponential_euler\n",
               cfg.source.string());

  const std::int64_t neurons = size_override > 0 ? size_override : s.neurons;
  spiking::NetworkSpec ns = point::named_network(set, neurons, s.seed);
  if (!s.connectivity.empty()) ns.connectivity = s.connectivity;
  ns.excitatory = s.excitatory >= 0 && size_override <= 0 ? s.excitatory : neurons * 4 / 5;
  if (s.probability) ns.probability = *s.probability;
  if (size_override > 0 && ns.connectivity == "fixed_probability")
    ns.probability = std::fmin(1.0, ns.probability * double(s.neurons) / double(neurons));  // same in-degree
  ns.in_degree = s.in_degree;
  if (s.self_connections) ns.self_connections = *s.self_connections;
  if (s.w_exc) ns.w_exc = to_spec(*s.w_exc);
  if (s.w_inh) ns.w_inh = to_spec(*s.w_inh);
  ns.delay_ms = s.delay_ms;
  if (ns.connectivity == "fixed_in_degree" && ns.in_degree >= neurons)
    throw ConfigError(fmt::format("{}: network.in_degree = {} needs more than {} neurons", cfg.source.string(),
                                  ns.in_degree, neurons));

  // A population network: the neurons of its scaled populations, synapses from its projections (no E/I shape).
  std::optional<spiking::ProjectionNetwork> projections;
  if (s.population_network) {
    if (size_override > 0)
      throw ConfigError(fmt::format("{}: --size / [compare] sizes set [network] neurons; a network of [[population]] "
                                    "tables is scaled by network.scale", cfg.source.string()));
    if (s.storage == "dense")
      throw ConfigError(fmt::format("{}: network.storage = \"dense\" is for [network] shapes", cfg.source.string()));
    try {
      projections = point::scaled_projection_network(*s.population_network, p, s.seed);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(in_file(cfg, e.what()));
    }
    ns = spiking::NetworkSpec{};
    ns.connectivity = "none";
    ns.neurons = ns.excitatory = projections->neurons();
    ns.seed = s.seed;
    ns.inhibitory_receptor = p.receptors() - 1;
  }

  point::DriveSpec drive = point::named_drive(set, ns.neurons);
  if (!s.inputs.empty()) drive.currents.clear();  // [[input]] replaces the parameter set's drive
  for (const auto& in : s.inputs) {
    // --sizes: an input range scales with the network (a range over the whole network stays so)
    const auto scaled = [&](std::int64_t k) {
      return size_override > 0 ? static_cast<std::int64_t>((long double)k * neurons / s.neurons) : k;
    };
    const std::int64_t last = in.last < 0 ? (size_override > 0 ? neurons : in.last) : scaled(in.last);
    if (in.kind == "poisson") {
      ns.poisson_sources = in.sources;
      ns.poisson_probability = in.probability;
      ns.w_poisson.value = in.weight;
      drive.poisson_rate_hz = in.rate_hz;
    } else {
      drive.currents.push_back({scaled(in.first), last, in.mean, in.sd});
    }
  }

  SpikingPlan plan;
  plan.config = &cfg;
  plan.steps = steps_override > 0 ? steps_override : cfg.steps;
  plan.dt_ms = p.dt;
  Stopwatch sw;
  try {
    point::InitialSpec initial = set.initial;
    if (s.initial_v) initial = {"constant", *s.initial_v, 0, 0, 0, 0, 0, 0, 0};
    if (s.storage == "dense" && double(neurons) * double(neurons) * 4.0 > 64.0 * (1ull << 30))
      throw ConfigError(fmt::format("{}: network.storage = \"dense\" needs {:.1f} GiB for {} neurons (limit 64 GiB); "
                                    "use storage = \"csr\"",
                                    cfg.source.string(), double(neurons) * double(neurons) * 4.0 / (1ull << 30),
                                    neurons));
    if (projections) require_population_memory(cfg, ns, *projections, request.state_on_host);
    else require_host_setup_memory(cfg, ns, request.state_on_host);
    point::PointSetup setup = point::make_point_setup(p, initial, ns, drive);
    if (projections) {
      try {
        point::apply_populations(*s.population_network, *projections, setup);
      } catch (const std::invalid_argument& e) {
        throw ConfigError(in_file(cfg, e.what()));
      }
    }
    setup.dense_synapses = s.storage == "dense";
    plan.setup = std::make_shared<const point::PointSetup>(std::move(setup));
    plan.host_bytes = kHostValuesPerNeuron * 8.0 * double(neurons);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(cfg.source.string() + ": [network]: " + e.what());
  }
  plan.network_build_s = sw.seconds();
  plan.cells = ns.neurons;
  plan.connections = projections ? projections->expected_synapses()
                                 : spiking::expected_synapses(ns);  // a run reports the count it generated
  plan.size_label = fmt::format("{}", ns.neurons);
  plan.work_per_step = double(ns.neurons);
  plan.record_spikes = s.record_spikes;
  plan.record_csv = s.csv;
  plan.record_binary = s.binary;
  plan.record_sonata = s.sonata;
  plan.record_synapses = s.synapses;
  plan.trace_every = std::max<std::int64_t>(1, s.every);
  plan.probe_var = point::V;
  plan.voltage_vars = {point::V};  // every point model's v is in mV (a single compartment)
  for (int var = 0; var < point::NUM_POINT_VARS; ++var)
    if (point::model_has_var(p, var)) {
      plan.checked_vars.push_back(var);
      plan.checked_var_names.push_back(point::kPointVarNames[var]);
    }
  if (size_override > 0) return plan;
  for (const auto& name : s.variables) {
    const int var = point::point_var_index(name);
    if (!point::model_has_var(p, var))
      throw ConfigError(fmt::format("{}: record.variables: \"{}\" is not a variable of model.kind = \"{}\" with "
                                    "this synapse type",
                                    cfg.source.string(), name, cfg.model));
    plan.trace_vars.push_back(var);
    plan.trace_var_names.push_back(point::kPointVarNames[var]);
  }
  plan.trace_cells = s.record_neurons;
  return plan;
}

}  // namespace kbrain::point
