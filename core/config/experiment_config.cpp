// TOML experiment files -> ExperimentConfig. Schema and error format: docs/experiment-schema.md.
#include "core/config/experiment_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

#include "core/config/spiking_config_reader.hpp"
#include "core/config/config_readers.hpp"
#include "core/config/model_settings_reader.hpp"
#include "core/config/toml_reader.hpp"
#include "core/recorders/sonata_spikes.hpp"

namespace kbrain {

const char* to_string(Precision p) { return p == Precision::Float ? "float" : "double"; }

Precision parse_precision(const std::string& s) {
  if (s == "float") return Precision::Float;
  if (s == "double") return Precision::Double;
  throw ConfigError(fmt::format("precision must be \"float\" or \"double\" (got \"{}\")", s));
}

namespace {

using config_detail::describe;
using config_detail::join;
using config_detail::TableReader;
using config_detail::Bound;
using config_detail::read_number;
using config_detail::read_integer;
using config_detail::read_bool;
using config_detail::read_existing_file;
using config_detail::read_network;
namespace fs = std::filesystem;

const std::vector<std::string> kGateSteps = {"reference", "corrected"};
const std::vector<std::string> kPrecisions = {"float", "double"};
const std::vector<std::string> kBackends = {"serial", "openmp", "cuda"};
const std::vector<std::string> kGCaLKinds = {"constant", "uniform", "file"};
const std::vector<std::string> kStimulusKinds = {"reference_pulse", "constant", "schedule", "cell_file"};
constexpr std::int64_t kMaxCells = config_detail::kMaxCells;

// Elements of array `key` (absent => nullopt), each checked by `element(node, "key[i]")`.
template <class T, class ElementFn>
std::optional<std::vector<T>> read_list(TableReader& t, std::string_view key, std::string_view expected,
                                        ElementFn element) {
  const toml::array* array = t.get_array(key, expected);
  if (!array) return std::nullopt;
  std::vector<T> out;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& node = *array->get(i);
    const std::string path = fmt::format("{}[{}]", t.key_path(key), i);
    T value = element(node, path);
    if (std::find(out.begin(), out.end(), value) != out.end())
      t.fail_at(node, path, fmt::format("repeats the value {} listed earlier in {}", describe(node), t.key_path(key)));
    out.push_back(std::move(value));
  }
  return out;
}

std::optional<std::vector<std::string>> read_choice_list(TableReader& t, std::string_view key,
                                                         const std::vector<std::string>& allowed) {
  const std::string expected = fmt::format("an array of strings, each one of {}", join(allowed));
  return read_list<std::string>(t, key, expected, [&](const toml::node& node, const std::string& path) {
    if (!node.is_string()) t.fail_at(node, path, fmt::format("must be a string (got {})", describe(node)));
    const std::string value = node.as_string()->get();
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
      t.fail_at(node, path, fmt::format("must be one of {} (got \"{}\")", join(allowed), value));
    return value;
  });
}

std::optional<std::vector<std::int64_t>> read_integer_list(TableReader& t, std::string_view key, std::int64_t min,
                                                           std::int64_t max, const std::string& range_note) {
  const std::string expected = fmt::format("an array of integers >= {}", min);
  return read_list<std::int64_t>(t, key, expected, [&](const toml::node& node, const std::string& path) {
    if (!node.is_integer()) t.fail_at(node, path, fmt::format("must be an integer (got {})", describe(node)));
    const std::int64_t value = node.as_integer()->get();
    if (value < min || value > max) t.fail_at(node, path, fmt::format("= {} is out of range: {}", value, range_note));
    return value;
  });
}

// [model.parameters]: every key must be in the model's parameter table and within its bounds.
void read_parameters(TableReader& model, const ModelSchema& schema, ExperimentConfig& cfg) {
  std::optional<TableReader> params = model.get_table("parameters");
  if (!params) return;
  for (const auto& entry : params->entries_in_file_order()) {
    const ParameterInfo* info = schema.parameter(entry.key);
    if (!info)
      params->fail(entry.key, fmt::format("is not a parameter of model.kind = \"{}\"; [model.parameters] keys must "
                                          "be one of {}",
                                          schema.kind, join(schema.parameter_names())));
    const double value = *params->get_number(entry.key);
    const std::string problem = info->check(value);
    if (!problem.empty()) params->fail(entry.key, problem);
    cfg.parameter_overrides.emplace_back(entry.key, value);
  }
}

const ModelSchema& read_model(TableReader& root, ExperimentConfig& cfg, const ModelCatalog& models) {
  std::optional<TableReader> model = root.get_table("model");
  cfg.model = model ? model->get_choice("kind", models.kinds(), std::string("io")) : std::string("io");
  const ModelSchema* schema = models.find(cfg.model);
  if (!schema) root.fail("model", fmt::format("model.kind \"{}\" is not a model of this kbrain", cfg.model));
  cfg.family = schema->family;
  if (!schema->parameter_sets.empty()) cfg.parameter_set = schema->parameter_sets.front();
  if (!model) return *schema;
  read_parameters(*model, *schema, cfg);
  if (cfg.spiking_family()) {
    config_detail::read_spiking_model(*model, *schema, cfg);
    return *schema;
  }
  if (!schema->parameter_sets.empty())
    cfg.parameter_set = model->get_choice("parameter_set", schema->parameter_sets, schema->parameter_sets.front());
  if (!cfg.declared_family()) cfg.gate_step = model->get_choice("gate_step", kGateSteps, std::string("reference"));
  model->reject_unknown_keys();
  return *schema;
}

void read_simulation(TableReader& root, ExperimentConfig& cfg, const ModelSchema& schema, const fs::path& base_dir) {
  std::optional<TableReader> sim = root.get_table("simulation");
  if (!sim) root.fail_missing("simulation", "a table [simulation] with at least steps");
  cfg.dt = read_number(*sim, "dt", 0.05, Bound::Positive);
  cfg.steps = read_integer(*sim, "steps", std::nullopt, 1);
  cfg.warmup_steps = read_integer(*sim, "warmup_steps", 0, 0);
  cfg.precision = parse_precision(sim->get_choice("precision", kPrecisions, std::string("double")));
  if (sim->has("backend")) cfg.backend = sim->get_choice("backend", kBackends, std::nullopt);
  for (const auto& option : schema.options)
    if (sim->has(option.key)) cfg.options.emplace_back(option.key, sim->get_choice(option.key, option.choices, std::nullopt));
  for (const TableSpec& table : schema.tables)
    if (table.name == "simulation") config_detail::read_declared_keys(*sim, table, cfg.settings, base_dir);
  if (std::optional<TableReader> bounds = sim->get_table("plausible")) {
    for (const auto& entry : bounds->entries_in_file_order()) {
      if (!schema.variable(entry.key))
        bounds->fail(entry.key, fmt::format("is not a variable of model.kind = \"{}\"; [simulation.plausible] keys "
                                            "must be one of {}",
                                            schema.kind, join(schema.variable_names())));
      const double bound = *bounds->get_number(entry.key);
      if (!(bound > 0)) bounds->fail(entry.key, fmt::format("must be > 0 (got {}): the largest magnitude the "
                                                            "variable may reach before the run stops", bound));
      cfg.plausible.emplace_back(entry.key, bound);
    }
  }
  sim->reject_unknown_keys(fmt::format("with model.kind = \"{}\"", schema.kind));
}

void read_cells(TableReader& root, ExperimentConfig& cfg, const fs::path& base_dir) {
  std::optional<TableReader> cells = root.get_table("cells");
  if (!cells) return;
  if (std::optional<TableReader> table = cells->get_table("g_cal")) {
    GCaLConfig& g = cfg.g_cal;
    g.kind = table->get_choice("kind", kGCaLKinds, std::nullopt);
    if (g.kind == "constant") {
      g.value = read_number(*table, "value", 0.68, Bound::NonNegative);
    } else if (g.kind == "uniform") {
      g.low = read_number(*table, "low", 0.6, Bound::NonNegative);
      g.high = read_number(*table, "high", 0.8, Bound::NonNegative);
      if (!(g.low < g.high)) {
        if (table->has("high"))
          table->fail("high", fmt::format("must be greater than cells.g_cal.low (got low = {}, high = {})", g.low,
                                          g.high));
        table->fail("low", fmt::format("must be less than cells.g_cal.high (got low = {}, high = {}, the default; "
                                       "set high too)",
                                       g.low, g.high));
      }
      g.seed = static_cast<std::uint64_t>(read_integer(*table, "seed", std::int64_t{1}, 0));
    } else {
      g.file = read_existing_file(*table, "file", base_dir);
    }
    table->reject_unknown_keys(fmt::format("with cells.g_cal.kind = \"{}\"", g.kind));
  }
  cells->reject_unknown_keys();
}

void read_stimulus(TableReader& root, ExperimentConfig& cfg, const fs::path& base_dir) {
  std::optional<TableReader> table = root.get_table("stimulus");
  if (!table) return;
  StimulusConfig& s = cfg.stimulus;
  s.kind = table->get_choice("kind", kStimulusKinds, std::nullopt);
  if (s.kind == "reference_pulse") {
    s.amplitude = read_number(*table, "amplitude", 6.0, Bound::Any);
    s.start = read_integer(*table, "start", std::int64_t{20000}, 0);
    s.stop = read_integer(*table, "stop", std::int64_t{20499}, 0);
    if (s.stop < s.start) {
      if (table->has("stop"))
        table->fail("stop", fmt::format("must be >= stimulus.start (got start = {}, stop = {}); the pulse is on for "
                                        "updates start <= n < stop",
                                        s.start, s.stop));
      table->fail("start", fmt::format("must be <= stimulus.stop (got start = {}, stop = {}, the default; set stop "
                                       "too)",
                                       s.start, s.stop));
    }
  } else if (s.kind == "constant") {
    s.value = read_number(*table, "value", std::nullopt, Bound::Any);
  } else if (s.kind == "schedule") {
    const bool has_values = table->has("values"), has_file = table->has("file");
    if (has_values && has_file)
      table->fail("file", "cannot be combined with stimulus.values: kind = \"schedule\" takes exactly one of "
                          "stimulus.values (an array of numbers, one per step) or stimulus.file (one value per line)");
    if (!has_values && !has_file)
      table->fail("kind", "= \"schedule\" needs stimulus.values (an array of numbers, one per step) or "
                          "stimulus.file (one value per line)");
    if (has_values) {
      const toml::array* values = table->get_array("values", "an array of numbers, one per step");
      if (values->empty()) table->fail("values", "must hold at least one value");
      for (std::size_t i = 0; i < values->size(); ++i)
        s.schedule.push_back(
            table->number_value(*values->get(i), fmt::format("{}[{}]", table->key_path("values"), i)));
    } else {
      s.file = read_existing_file(*table, "file", base_dir);
    }
  } else {
    s.file = read_existing_file(*table, "file", base_dir);
  }
  table->reject_unknown_keys(fmt::format("with stimulus.kind = \"{}\"", s.kind));
}

void read_record(TableReader& root, ExperimentConfig& cfg, const ModelSchema& schema) {
  std::optional<TableReader> table = root.get_table("record");
  if (!table) return;
  RecordConfig& r = cfg.record;
  if (auto variables = read_choice_list(*table, "variables", schema.variable_names()))
    r.variables = *variables;
  else if (cfg.declared_family() && !schema.variables.empty())
    r.variables = {schema.variables.front().name};
  if (const toml::node* cells = table->node("cells")) {
    if (cells->is_string()) {
      if (cells->as_string()->get() != "all")
        table->fail("cells", fmt::format("must be \"all\" or an array of cell indices (got \"{}\")",
                                         cells->as_string()->get()));
      r.all_cells = true;
    } else if (cells->is_array()) {
      const std::int64_t known = cfg.network.cells;  // 0 => size known only once the network file is read
      const std::string note =
          known > 0 ? fmt::format("cell indices must be in [0, {}) for this {} network of {} cells", known,
                                  cfg.network.type, known)
                    : std::string("cell indices must be >= 0");
      r.cells = *read_integer_list(*table, "cells", 0, known > 0 ? known - 1 : kMaxCells - 1, note);
    } else {
      table->fail_type("cells", *cells, "\"all\" or an array of cell indices");
    }
  }
  r.every = read_integer(*table, "every", std::int64_t{1}, 1);
  r.csv = read_bool(*table, "csv", true);
  r.binary = read_bool(*table, "binary", false);
  r.sonata = read_bool(*table, "sonata", false);
  if (r.sonata && !sonata_spikes_available()) table->fail("sonata", kNoSonata);
  r.spikes = read_bool(*table, "spikes", true);
  r.spike_threshold = read_number(*table, "spike_threshold", -20.0, Bound::Any);
  table->reject_unknown_keys();
}

// [compare.published]: hardware = "...", then per backend an array of seconds, one per (density, size) of the sweep,
// density-major (a value of 0 or below: not published for that point).
void read_published(TableReader& t, CompareConfig& c) {
  c.published_hardware = t.require_string("hardware", "a string naming the study's hardware");
  for (const std::string& backend : kBackends) {
    const toml::array* times = t.get_array(backend, "an array of seconds, one per compare.sizes entry");
    if (!times) continue;
    const std::size_t points = c.sizes.size() * std::max<std::size_t>(1, c.densities.size());
    if (times->size() != points)
      t.fail(backend, fmt::format("must hold one value per point of the sweep, compare.densities x compare.sizes "
                                  "(density-major): {} values; got {}; write 0 where the study published none",
                                  points, times->size()));
    std::vector<double> seconds;
    for (std::size_t i = 0; i < times->size(); ++i) {
      const double v = t.number_value(*times->get(i), fmt::format("{}[{}]", t.key_path(backend), i));
      seconds.push_back(v > 0 ? v : std::numeric_limits<double>::quiet_NaN());
    }
    c.published.emplace_back(backend, std::move(seconds));
  }
  t.reject_unknown_keys();
}

void read_compare(TableReader& root, ExperimentConfig& cfg, const ModelSchema& schema) {
  std::optional<TableReader> table = root.get_table("compare");
  if (!table) return;
  CompareConfig& c = cfg.compare;
  if (auto backends = read_choice_list(*table, "backends", kBackends)) c.backends = *backends;
  if (table->has("variants") && schema.variant_choices().empty())
    table->fail("variants", fmt::format("cannot be used with model.kind = \"{}\": the model has no variants", schema.kind));
  if (auto variants = read_choice_list(*table, "variants", schema.variant_choices())) {
    if (variants->empty()) table->fail("variants", "must list at least one value of " + schema.variant_setting);
    c.variants = *variants;
  }
  const bool mesh = !cfg.declared_family() && cfg.network.type == "mesh2d";
  const bool sized = mesh || cfg.network.type == "all_to_all" || cfg.network.generated() || cfg.declared_family();
  if (table->has("sizes") && !sized)
    table->fail("sizes", fmt::format("cannot be used with network.type = \"{}\": the file fixes the network size "
                                     "(sizes apply to mesh2d, all_to_all, uniform and gaussian3d)",
                                     cfg.network.type));
  const std::int64_t max_size = mesh ? 46340 : kMaxCells;  // mesh: side, side^2 must stay <= 2^31 - 1
  const std::string note = mesh ? fmt::format("mesh side lengths must be in [1, {}]", max_size)
                                : fmt::format("cell counts must be in [1, {}]", max_size);
  if (auto sizes = read_integer_list(*table, "sizes", 1, max_size, note)) c.sizes = *sizes;
  if (table->has("densities") && !cfg.network.generated() && !cfg.declared_family())
    table->fail("densities", fmt::format("cannot be used with network.type = \"{}\" (densities apply to uniform and "
                                         "gaussian3d)",
                                         cfg.network.type));
  if (auto densities = read_list<double>(*table, "densities", "an array of numbers > 0",
                                         [&](const toml::node& node, const std::string& path) {
                                           const double v = table->number_value(node, path);
                                           if (!(v > 0)) table->fail_at(node, path, fmt::format("must be > 0 (got {})", v));
                                           return v;
                                         }))
    c.densities = *densities;
  if (auto precisions = read_choice_list(*table, "precisions", kPrecisions)) {
    if (precisions->empty()) table->fail("precisions", "must list at least one of float, double");
    c.precisions = *precisions;
  }
  if (std::optional<TableReader> pub = table->get_table("published")) read_published(*pub, c);
  c.max_slow_cell_steps = read_integer(*table, "max_slow_cell_steps", c.max_slow_cell_steps, 1);
  c.probe_cells = read_integer(*table, "probe_cells", c.probe_cells, 1);
  table->reject_unknown_keys();
}

// A plain file name: "." and ".." (any name of dots only) would put the output outside out/<name>.
bool is_valid_name(const std::string& name) {
  return !name.empty() && name.find_first_not_of('.') != std::string::npos &&
         std::all_of(name.begin(), name.end(), [](char ch) {
           return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.';
         });
}

}  // namespace

double CompareConfig::published_s(const std::string& backend, std::int64_t size, double density) const {
  const auto at = std::find(sizes.begin(), sizes.end(), size);
  const auto d = std::find(densities.begin(), densities.end(), density);
  if (at == sizes.end() || (!densities.empty() && d == densities.end())) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t k = (densities.empty() ? 0 : std::size_t(d - densities.begin())) * sizes.size() +
                        std::size_t(at - sizes.begin());
  for (const auto& [b, seconds] : published)
    if (b == backend) return seconds[k];
  return std::numeric_limits<double>::quiet_NaN();
}

std::string ExperimentConfig::option(const std::string& key, const std::string& fallback) const {
  for (const auto& [k, v] : options)
    if (k == key) return v;
  return fallback;
}

void ExperimentConfig::set_option(const std::string& key, const std::string& value) {
  for (auto& [k, v] : options)
    if (k == key) {
      v = value;
      return;
    }
  options.emplace_back(key, value);
}

ExperimentConfig parse_experiment(const std::string& toml_text, const std::filesystem::path& source_name,
                                  const ModelCatalog& models) {
  const std::string file = source_name.empty() ? std::string("<string>") : source_name.string();
  toml::table document;
  try {
    document = toml::parse(toml_text, file);
  } catch (const toml::parse_error& e) {
    throw ConfigError(fmt::format("{}:{}:{}: TOML syntax error: {}", file, e.source().begin.line,
                                  e.source().begin.column, e.description()));
  }

  ExperimentConfig cfg;
  cfg.source = source_name;
  std::error_code ec;
  fs::path base_dir = source_name.parent_path();
  base_dir = fs::absolute(base_dir.empty() ? fs::path(".") : base_dir, ec).lexically_normal();

  TableReader root(document, "", file);
  cfg.name = root.require_string("name", "a string of letters, digits, '_', '-' or '.'");
  if (!is_valid_name(cfg.name))
    root.fail("name", fmt::format("must be a plain file name of letters, digits, '_', '-' or '.', not dots alone (got \"{}\"); "
                                  "it names the output files",
                                  cfg.name));
  cfg.description = root.get_string("description").value_or("");
  const ModelSchema& schema = read_model(root, cfg, models);
  read_simulation(root, cfg, schema, base_dir);
  if (cfg.spiking_family()) {
    config_detail::read_spiking_tables(root, cfg, schema);
  } else if (cfg.declared_family()) {
    config_detail::read_declared_tables(root, schema, cfg, base_dir);
    read_record(root, cfg, schema);
    read_compare(root, cfg, schema);
  } else {
    read_network(root, cfg, base_dir);
    read_cells(root, cfg, base_dir);
    read_stimulus(root, cfg, base_dir);
    read_record(root, cfg, schema);
    read_compare(root, cfg, schema);
  }
  root.reject_unknown_keys();
  return cfg;
}

ExperimentConfig load_experiment(const std::filesystem::path& file, const ModelCatalog& models) {
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (!fs::exists(status)) throw ConfigError(fmt::format("{}: experiment file not found", file.string()));
  if (fs::is_directory(status))
    throw ConfigError(fmt::format("{}: is a directory, not an experiment file", file.string()));
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) throw ConfigError(fmt::format("{}: cannot read the experiment file", file.string()));
  return parse_experiment(text.str(), file, models);
}

}  // namespace kbrain
