// [[population]], [[projection]] and the [network] keys that go with them -> PopulationNetworkConfig (schema:
// docs/models/populations.md). Checks every key's form, names and ranges here, with file and line; the setup checks
// what needs the model (dt, receptors) and names the table's line too.
#include "core/config/projection_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "core/config/spiking_config_reader.hpp"

namespace kbrain::config_detail {

namespace {

const std::vector<std::string> kRules = {"fixed_total_number", "pairwise_bernoulli", "fixed_indegree",
                                         "fixed_outdegree",    "one_to_one",         "all_to_all"};
const std::vector<std::string> kDists = {"constant", "normal", "uniform", "lognormal"};
constexpr std::int64_t kMaxPopulation = std::numeric_limits<std::int32_t>::max() - 1;

double required_number(TableReader& t, std::string_view key, std::string_view expected) {
  const auto v = t.get_number(key);
  if (!v) t.fail_missing(key, expected);
  return *v;
}

std::int64_t count_of(TableReader& t, std::string_view key) {
  const auto v = t.get_integer(key);
  if (!v) t.fail_missing(key, "an integer >= 0");
  if (*v < 0) t.fail(key, fmt::format("must be an integer >= 0 (got {})", *v));
  return *v;
}

// `key` = a number (constant) or a distribution table.
DistributionConfig distribution(TableReader& t, std::string_view key, bool required, double fallback) {
  DistributionConfig d;
  d.value = fallback;
  const toml::node* n = t.node(key);
  if (!n) {
    if (required) t.fail_missing(key, "a number or a table { dist = ... }");
    return d;
  }
  if (!n->is_table()) {
    d.value = t.number_value(*n, t.key_path(key));
    return d;
  }
  TableReader dt = *t.get_table(key);
  d.dist = dt.get_choice("dist", kDists, std::nullopt);
  if (d.dist == "constant") d.value = required_number(dt, "value", "a number");
  if (d.dist == "normal") {
    d.mean = required_number(dt, "mean", "a number");
    d.std = required_number(dt, "std", "a number >= 0");
    if (d.std < 0) dt.fail("std", fmt::format("must be >= 0 (got {})", d.std));
  }
  if (d.dist == "uniform") {
    d.low = required_number(dt, "low", "a number");
    d.high = required_number(dt, "high", "a number");
    if (!(d.high >= d.low)) dt.fail("high", fmt::format("must be >= low = {} (got {})", d.low, d.high));
  }
  if (d.dist == "lognormal") {
    d.mu = required_number(dt, "mu", "a number");
    d.sigma = required_number(dt, "sigma", "a number >= 0");
    if (d.sigma < 0) dt.fail("sigma", fmt::format("must be >= 0 (got {})", d.sigma));
  }
  if (d.dist != "constant") {
    d.min = dt.get_number("min");
    d.max = dt.get_number("max");
    if (dt.has("clip")) d.clip = dt.get_choice("clip", {"redraw", "clamp"}, std::nullopt);
    if ((d.min || d.max) && d.clip.empty())
      dt.fail(d.min ? "min" : "max", "needs clip = \"redraw\" (draw again, as NEST's redraw) or \"clamp\"");
    if (d.min && d.max && *d.min > *d.max) dt.fail("max", fmt::format("must be >= min = {} (got {})", *d.min, *d.max));
  }
  dt.reject_unknown_keys(fmt::format("with {}.dist = \"{}\"", t.key_path(key), d.dist));
  return d;
}

const toml::array* tables(TableReader& root, std::string_view key) {
  return root.get_array(key, fmt::format("an array of tables [[{}]]", key));
}

PopulationConfig population(TableReader& t) {
  PopulationConfig p;
  p.where = t.where();
  p.name = t.require_string("name", "a name (letters, digits, _)");
  if (p.name.empty() || !std::all_of(p.name.begin(), p.name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      }))
    t.fail("name", fmt::format("must be letters, digits and _ (got \"{}\")", p.name));
  const auto size = t.get_integer("size");
  if (!size) t.fail_missing("size", "an integer >= 1");
  if (*size < 1 || *size > kMaxPopulation) t.fail("size", fmt::format("must be in [1, {}] (got {})", kMaxPopulation, *size));
  p.size = *size;
  if (t.has("v0")) p.v0 = distribution(t, "v0", true, 0);
  p.i_e = t.get_number("i_e").value_or(0.0);
  p.expected_rate = t.get_number("expected_rate");
  if (p.expected_rate && *p.expected_rate < 0) t.fail("expected_rate", "must be >= 0 (Hz)");
  if (std::optional<TableReader> pt = t.get_table("poisson")) {
    PoissonDriveConfig d;
    d.rate_hz = required_number(*pt, "rate", "a number >= 0 (Hz per source)");
    if (d.rate_hz < 0) pt->fail("rate", fmt::format("must be >= 0 (got {})", d.rate_hz));
    d.indegree = count_of(*pt, "indegree");
    d.weight = required_number(*pt, "weight", "a number (model units)");
    pt->reject_unknown_keys();
    p.poisson = d;
  }
  t.reject_unknown_keys();
  return p;
}

ProjectionConfig projection(TableReader& t, const std::vector<PopulationConfig>& pops) {
  ProjectionConfig p;
  p.where = t.where();
  for (const char* end : {"source", "target"}) {
    const std::string name = t.require_string(end, "the name of a [[population]]");
    if (std::none_of(pops.begin(), pops.end(), [&](const PopulationConfig& q) { return q.name == name; })) {
      std::string known;
      for (const auto& q : pops) known += (known.empty() ? "" : ", ") + q.name;
      t.fail(end, fmt::format("names no [[population]] (got \"{}\"; known: {})", name, known));
    }
    (std::string(end) == "source" ? p.source : p.target) = name;
  }
  p.name = t.get_string("name").value_or(p.source + "->" + p.target);
  p.rule = t.get_choice("rule", kRules, std::nullopt);
  if (p.rule == "fixed_total_number") p.count = count_of(t, "N");
  if (p.rule == "fixed_indegree") p.count = count_of(t, "indegree");
  if (p.rule == "fixed_outdegree") p.count = count_of(t, "outdegree");
  if (p.rule == "pairwise_bernoulli") {
    p.probability = required_number(t, "p", "a probability in [0, 1]");
    if (!(p.probability >= 0 && p.probability <= 1)) t.fail("p", fmt::format("must be in [0, 1] (got {})", p.probability));
  }
  p.autapses = t.get_bool("allow_autapses").value_or(true);
  p.multapses = t.get_bool("allow_multapses").value_or(true);
  if (t.has("receptor")) p.receptor = t.get_choice("receptor", {"excitatory", "inhibitory"}, std::nullopt);
  p.weight = distribution(t, "weight", true, 0);
  p.delay = distribution(t, "delay", false, 0);
  t.reject_unknown_keys(fmt::format("with rule = \"{}\"", p.rule));
  return p;
}

}  // namespace

bool has_population_tables(TableReader& root) { return root.has("population") || root.has("projection"); }

void read_population_network(TableReader& root, TableReader* network, SpikingConfig& s) {
  PopulationNetworkConfig n;
  const toml::array* pops = tables(root, "population");
  if (!pops || pops->empty()) throw ConfigError(fmt::format("{}: [[projection]] needs [[population]] tables", root.file()));
  for (std::size_t i = 0; i < pops->size(); ++i) {
    const toml::node& node = *pops->get(i);
    const std::string path = fmt::format("population[{}]", i);
    if (!node.is_table()) root.fail_at(node, path, "must be a table [[population]]");
    TableReader t(*node.as_table(), path, root.file());
    PopulationConfig p = population(t);
    if (std::any_of(n.populations.begin(), n.populations.end(), [&](auto& q) { return q.name == p.name; }))
      t.fail("name", fmt::format("repeats the population name \"{}\"", p.name));
    n.populations.push_back(std::move(p));
  }
  if (const toml::array* projs = tables(root, "projection"))
    for (std::size_t i = 0; i < projs->size(); ++i) {
      const toml::node& node = *projs->get(i);
      const std::string path = fmt::format("projection[{}]", i);
      if (!node.is_table()) root.fail_at(node, path, "must be a table [[projection]]");
      TableReader t(*node.as_table(), path, root.file());
      n.projections.push_back(projection(t, n.populations));
    }
  if (network) {
    if (network->has("scale")) {
      const double f = *network->get_number("scale");
      if (!(f > 0 && f <= 1)) network->fail("scale", fmt::format("must be in (0, 1] (got {})", f));
      n.n_scaling = n.k_scaling = f;
    }
    for (const char* key : {"n_scaling", "k_scaling"}) {
      if (!network->has(key)) continue;
      const double f = *network->get_number(key);
      if (!(f > 0 && f <= 1)) network->fail(key, fmt::format("must be in (0, 1] (got {})", f));
      (std::string(key) == "n_scaling" ? n.n_scaling : n.k_scaling) = f;
    }
  }
  // Neuron indices (record.neurons, [[input]] ranges) refer to the scaled network (sizes rounded half to even, as
  // the reference PD14 code's numpy rounding).
  s.neurons = 0;
  for (const auto& p : n.populations) s.neurons += std::max<std::int64_t>(1, std::llrint(double(p.size) * n.n_scaling));
  s.population_network = std::move(n);
}

}  // namespace kbrain::config_detail
