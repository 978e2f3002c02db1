// Spiking-network tables of an experiment file -> SpikingConfig (schema: docs/experiment-schema.md, "Spiking
// networks"). Same strictness and error format as experiment_config.cpp: <file>:<line>: <key> <what is allowed>.
#include "core/config/spiking_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/config/spiking_config_reader.hpp"
#include "core/model/model_schema.hpp"
#include "core/recorders/sonata_spikes.hpp"

namespace kbrain {

namespace config_detail {
namespace {

constexpr std::int64_t kMaxNeurons = std::numeric_limits<std::int32_t>::max() - 1;
const std::vector<std::string> kBackends = {"serial", "openmp", "cuda"};
const std::vector<std::string> kPrecisions = {"float", "double"};
const std::vector<std::string> kConnectivity = {"fixed_probability", "fixed_in_degree", "all_to_all", "none"};
const std::vector<std::string> kInputKinds = {"current", "thalamic", "poisson"};

double number(TableReader& t, std::string_view key, double fallback, double min, const char* requirement) {
  const std::optional<double> v = t.get_number(key);
  if (!v) return fallback;
  if (!(*v >= min)) t.fail(key, fmt::format("must be {} (got {})", requirement, *v));
  return *v;
}

std::int64_t integer(TableReader& t, std::string_view key, std::int64_t fallback, std::int64_t min, std::int64_t max) {
  const std::optional<std::int64_t> v = t.get_integer(key);
  if (!v) return fallback;
  if (*v < min || *v > max) t.fail(key, fmt::format("must be an integer in [{}, {}] (got {})", min, max, *v));
  return *v;
}

std::vector<std::string> choices(TableReader& t, std::string_view key, const std::vector<std::string>& allowed) {
  std::vector<std::string> out;
  const toml::array* a = t.get_array(key, fmt::format("an array of strings, each one of {}", join(allowed)));
  if (!a) return out;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::node& n = *a->get(i);
    const std::string path = fmt::format("{}[{}]", t.key_path(key), i);
    if (!n.is_string()) t.fail_at(n, path, fmt::format("must be a string (got {})", describe(n)));
    const std::string v = n.as_string()->get();
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
      t.fail_at(n, path, fmt::format("must be one of {} (got \"{}\")", join(allowed), v));
    if (std::find(out.begin(), out.end(), v) != out.end())
      t.fail_at(n, path, fmt::format("repeats \"{}\" listed earlier in {}", v, t.key_path(key)));
    out.push_back(v);
  }
  return out;
}

std::vector<std::int64_t> integers(TableReader& t, std::string_view key, std::int64_t min, std::int64_t max) {
  std::vector<std::int64_t> out;
  const toml::array* a = t.get_array(key, fmt::format("an array of integers in [{}, {}]", min, max));
  if (!a) return out;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::node& n = *a->get(i);
    const std::string path = fmt::format("{}[{}]", t.key_path(key), i);
    if (!n.is_integer()) t.fail_at(n, path, fmt::format("must be an integer (got {})", describe(n)));
    const std::int64_t v = n.as_integer()->get();
    if (v < min || v > max) t.fail_at(n, path, fmt::format("= {} is out of range [{}, {}]", v, min, max));
    if (std::find(out.begin(), out.end(), v) != out.end())
      t.fail_at(n, path, fmt::format("repeats the value {} listed earlier in {}", v, t.key_path(key)));
    out.push_back(v);
  }
  return out;
}

// A weight: a number, or a table { kind = "uniform", low = .., high = .. } / { kind = "constant", value = .. }.
std::optional<SpikingWeightConfig> weight(TableReader& t, std::string_view key) {
  const toml::node* n = t.node(key);
  if (!n) return std::nullopt;
  SpikingWeightConfig w;
  if (n->is_table()) {
    TableReader wt = *t.get_table(key);
    w.kind = wt.get_choice("kind", {"constant", "uniform"}, std::nullopt);
    if (w.kind == "constant") {
      const auto v = wt.get_number("value");
      if (!v) wt.fail_missing("value", "a number");
      w.value = *v;
    } else {
      const auto lo = wt.get_number("low"), hi = wt.get_number("high");
      if (!lo) wt.fail_missing("low", "a number");
      if (!hi) wt.fail_missing("high", "a number");
      w.low = *lo;
      w.high = *hi;
    }
    wt.reject_unknown_keys(fmt::format("with {}.kind = \"{}\"", t.key_path(key), w.kind));
  } else {
    w.value = t.number_value(*n, t.key_path(key));
  }
  return w;
}

// [network] beside [[population]] tables: the seed and the scale only.
void read_population_tables(TableReader& root, SpikingConfig& s) {
  std::optional<TableReader> net = root.get_table("network");
  if (net) s.seed = static_cast<std::uint64_t>(integer(*net, "seed", 1, 0, std::numeric_limits<std::int64_t>::max()));
  read_population_network(root, net ? &*net : nullptr, s);
  if (net) net->reject_unknown_keys("with [[population]] tables (the populations and projections state the rest)");
}

void read_network(TableReader& root, SpikingConfig& s) {
  if (has_population_tables(root)) return read_population_tables(root, s);
  std::optional<TableReader> net = root.get_table("network");
  if (!net) return;  // the parameter set's network at its published size
  if (net->has("type")) s.connectivity = net->get_choice("type", kConnectivity, std::nullopt);
  s.neurons = integer(*net, "neurons", s.neurons, 1, kMaxNeurons);
  s.excitatory = integer(*net, "excitatory", -1, 0, s.neurons);
  const std::string type = s.connectivity;
  if (type == "" || type == "fixed_probability") {
    if (net->has("probability")) {
      const double p = *net->get_number("probability");
      if (!(p >= 0 && p <= 1)) net->fail("probability", fmt::format("must be in [0, 1] (got {})", p));
      s.probability = p;
    }
  }
  if (type == "fixed_in_degree") {
    if (!net->has("in_degree")) net->fail_missing("in_degree", "an integer >= 1");
    s.in_degree = integer(*net, "in_degree", 0, 1, s.neurons - 1);
  }
  if (net->has("self_connections")) s.self_connections = net->get_bool("self_connections");
  s.w_exc = weight(*net, "w_exc");
  s.w_inh = weight(*net, "w_inh");
  s.delay_ms = number(*net, "delay", 0.0, 0.0, "a number >= 0 (ms)");
  s.seed = static_cast<std::uint64_t>(integer(*net, "seed", 1, 0, std::numeric_limits<std::int64_t>::max()));
  if (net->has("storage")) s.storage = net->get_choice("storage", {"csr", "dense"}, std::nullopt);
  net->reject_unknown_keys(type.empty() ? std::string() : fmt::format("with network.type = \"{}\"", type));
}

void read_inputs(TableReader& root, SpikingConfig& s) {
  const toml::array* a = root.get_array("input", "an array of tables [[input]]");
  if (!a) return;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::node& n = *a->get(i);
    const std::string path = fmt::format("input[{}]", i);
    if (!n.is_table()) root.fail_at(n, path, fmt::format("must be a table [[input]] (got {})", describe(n)));
    TableReader t(*n.as_table(), path, root.file());
    SpikingInputConfig in;
    in.kind = t.get_choice("kind", kInputKinds, std::nullopt);
    if (in.kind != "poisson") {
      in.first = integer(t, "first", 0, 0, s.neurons);
      in.last = integer(t, "last", s.neurons, in.first, s.neurons);
      in.mean = t.get_number("mean").value_or(0.0);
    }
    if (in.kind == "thalamic") in.sd = number(t, "sd", 0.0, 0.0, "a number >= 0");
    if (in.kind == "poisson" && s.population_network)
      t.fail("kind", "\"poisson\" sources do not combine with [[population]] tables: give the population a "
                     "poisson = { rate, indegree, weight } drive");
    if (in.kind == "poisson") {
      if (!t.has("sources")) t.fail_missing("sources", "an integer >= 1");
      in.sources = integer(t, "sources", 0, 1, kMaxNeurons);
      in.rate_hz = number(t, "rate", 0.0, 0.0, "a number >= 0 (Hz)");
      in.probability = number(t, "probability", 1.0, 0.0, "a number in [0, 1]");
      if (in.probability > 1) t.fail("probability", fmt::format("must be in [0, 1] (got {})", in.probability));
      if (!t.has("weight")) t.fail_missing("weight", "a number (model units)");
      in.weight = *t.get_number("weight");
    }
    t.reject_unknown_keys(fmt::format("with {}.kind = \"{}\"", path, in.kind));
    s.inputs.push_back(in);
  }
  if (std::count_if(s.inputs.begin(), s.inputs.end(), [](auto& x) { return x.kind == "poisson"; }) > 1)
    throw ConfigError(fmt::format("{}: at most one [[input]] of kind \"poisson\" (its sources share one rate)",
                                  root.file()));
}

void read_record(TableReader& root, SpikingConfig& s, const std::vector<std::string>& variables) {
  std::optional<TableReader> t = root.get_table("record");
  if (!t) return;
  s.record_spikes = t->get_bool("spikes").value_or(true);
  if (t->has("variables")) s.variables = choices(*t, "variables", variables);
  s.record_neurons = integers(*t, "neurons", 0, s.neurons - 1);
  s.every = integer(*t, "every", 1, 1, std::numeric_limits<std::int64_t>::max());
  s.csv = t->get_bool("csv").value_or(true);
  s.binary = t->get_bool("binary").value_or(false);
  s.sonata = t->get_bool("sonata").value_or(false);
  if (s.sonata && !sonata_spikes_available()) t->fail("sonata", kNoSonata);
  s.synapses = t->get_bool("synapses").value_or(false);
  t->reject_unknown_keys("for a spiking model");
}

void read_compare(TableReader& root, CompareConfig& c) {
  std::optional<TableReader> t = root.get_table("compare");
  if (!t) return;
  c.backends = choices(*t, "backends", kBackends);
  if (t->has("precisions")) {
    c.precisions = choices(*t, "precisions", kPrecisions);
    if (c.precisions.empty()) t->fail("precisions", "must list at least one of float, double");
  }
  c.sizes = integers(*t, "sizes", 1, kMaxNeurons);
  c.max_slow_cell_steps = integer(*t, "max_slow_neuron_steps", c.max_slow_cell_steps, 1,
                                  std::numeric_limits<std::int64_t>::max());
  t->reject_unknown_keys("for a spiking model");
}

}  // namespace

void read_spiking_model(TableReader& model, const ModelSchema& schema, ExperimentConfig& cfg) {
  SpikingConfig& s = cfg.spiking;
  s.parameter_set = model.get_choice("parameter_set", schema.parameter_sets, schema.parameter_sets.front());
  if (model.has("integrator")) s.integrator = model.get_choice("integrator", schema.integrators, std::nullopt);
  if (model.has("synapse")) s.synapse = model.get_choice("synapse", schema.synapses, std::nullopt);
  if (model.has("initial_v")) s.initial_v = model.get_number("initial_v");
  if (cfg.model == "lif") {
    if (model.has("threshold")) s.threshold = model.get_choice("threshold", {"exclusive", "inclusive"}, std::nullopt);
    if (model.has("refractory_rule"))
      s.refractory_rule = model.get_choice("refractory_rule", {"brian2", "nest"}, std::nullopt);
  }
  if (cfg.model == "cortex_hh") {
    s.gating = model.get_choice("gating", {"traub_miles", "wang2012"}, std::string("traub_miles"));
    if (model.has("eai")) s.eai = model.get_bool("eai");
    if (model.has("lut")) s.lut = model.get_bool("lut");
    if (model.has("tpm")) s.tpm = model.get_bool("tpm");
  }
  model.reject_unknown_keys(fmt::format("with model.kind = \"{}\"", cfg.model));
}

void read_spiking_tables(TableReader& root, ExperimentConfig& cfg, const ModelSchema& schema) {
  SpikingConfig& s = cfg.spiking;
  if (std::optional<TableReader> sim = root.get_table("simulation")) s.dt_given = sim->has("dt");
  read_network(root, s);
  read_inputs(root, s);
  read_record(root, s, schema.variable_names());
  read_compare(root, cfg.compare);
}

}  // namespace config_detail
}  // namespace kbrain
