#pragma once
// An experiment file (TOML) as validated structs. Schema: docs/experiment-schema.md.
// load_experiment() validates every key and throws ConfigError naming the file, the key (or line) and what is allowed.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/config/model_settings.hpp"
#include "core/config/spiking_config.hpp"
#include "core/model/model_schema.hpp"

namespace kbrain {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Precision { Float, Double };
const char* to_string(Precision p);
Precision parse_precision(const std::string& s);  // "float" | "double", else ConfigError

// [network]
struct NetworkConfig {
  std::string type = "mesh2d";  // mesh2d | all_to_all | matrix_file | edge_list | uniform | gaussian3d
  std::int64_t rows = 0, cols = 0;  // mesh2d
  std::int64_t cells = 0;           // all_to_all, uniform, gaussian3d (and the size check of the file types)
  double conductance = 0.04;        // mesh2d, all_to_all, uniform, gaussian3d (constant conductance)
  std::filesystem::path file;       // matrix_file, edge_list (resolved relative to the experiment file)
  // uniform, gaussian3d (core/network/random_network.hpp, docs/network-generators.md)
  double density = 0;               // mean incoming junctions per cell
  std::string mode = "bernoulli";   // uniform: exact | bernoulli
  double sigma = 1.0, scale = 5.0;  // gaussian3d
  bool symmetric = false;
  std::uint64_t seed = 1;
  bool conductance_range = false;   // conductance_low/high given: uniform in [low, high)
  double conductance_low = 0, conductance_high = 0;
  bool generated() const { return type == "uniform" || type == "gaussian3d"; }
};

// [cells.g_cal]
struct GCaLConfig {
  std::string kind = "constant";  // constant | uniform | file
  double value = 0.68;            // constant
  double low = 0.6, high = 0.8;   // uniform in [low, high)
  std::uint64_t seed = 1;         // uniform
  std::filesystem::path file;     // file: whitespace-separated, one value per cell
};

// [stimulus]
struct StimulusConfig {
  std::string kind = "reference_pulse";  // reference_pulse | constant | schedule | cell_file
  double amplitude = 6.0;                // reference_pulse: I_app during [start, stop)
  std::int64_t start = 20000, stop = 20499;
  double value = 0.0;                    // constant
  std::vector<double> schedule;          // schedule: one value per step (steps past the end get 0)
  std::filesystem::path file;            // schedule (alternative: one value per line) or cell_file (one line per step,
                                         // one value per cell)
};

// [record]
struct RecordConfig {
  std::vector<std::string> variables = {"v_axon"};  // IO state variable names (models/olive/cell/io_state.hpp)
  std::vector<std::int64_t> cells;                   // empty + all_cells=false => none
  bool all_cells = false;                            // cells = "all"
  std::int64_t every = 1;                            // sample every k steps
  bool csv = true;
  bool binary = false;
  bool sonata = false;                               // spikes also as a SONATA file (spikes.h5)
  bool spikes = true;
  double spike_threshold = -20.0;
};

// [compare] — used by `kbrain compare`
struct CompareConfig {
  std::vector<std::string> backends;                 // empty => all compiled-in
  std::vector<std::int64_t> sizes;                   // mesh2d: side lengths (rows = cols = size); others: cells
  std::vector<double> densities;                     // uniform, gaussian3d: network.density values to sweep
  std::vector<std::string> variants;                 // values of the model's variant_setting to sweep (empty: the file's)
  std::int64_t max_slow_cell_steps = 2'000'000'000;  // serial budget: fewer steps beyond it (table says so)
  std::int64_t probe_cells = 16;                     // cells whose V_axon is compared against serial double
  std::vector<std::string> precisions = {"float", "double"};
  // [compare.published]: a study's own times (s) per backend, one per (density, size) of the sweep (density-major;
  // one per size without densities), shown beside kbrain's
  std::vector<std::pair<std::string, std::vector<double>>> published;  // backend -> seconds (NaN: not published)
  std::string published_hardware;                                      // what the study ran on
  double published_s(const std::string& backend, std::int64_t size, double density) const;  // NaN when none
};

struct ExperimentConfig {
  std::filesystem::path source;  // the TOML file
  std::string name;
  std::string description;
  std::string model = "io";               // a kind of the ModelCatalog (models/registry.hpp)
  std::string family = "gap_network";     // the kind's ModelSchema::family: which tables the file has
  std::string parameter_set = "reference";
  std::string gate_step = "reference";    // reference (literal 0.05 in the fast-K gates) | corrected (dt)
  // [model.parameters] key = value, in file order; keys and bounds from the model's parameter table
  std::vector<std::pair<std::string, double>> parameter_overrides;
  // [simulation] settings of this model (ModelSchema::options), e.g. gap_kernel; unset keys take their default
  std::vector<std::pair<std::string, std::string>> options;
  double dt = 0.05;                       // ms
  std::int64_t steps = 0;
  std::int64_t warmup_steps = 0;         // [simulation] warmup_steps: run before the timed steps
  // [simulation.plausible] variable = bound, in file order: the largest magnitude of a checked variable before the
  // run stops as on NaN (overrides the model's VariableInfo::plausible)
  std::vector<std::pair<std::string, double>> plausible;
  Precision precision = Precision::Double;
  std::string backend;                    // default backend for `kbrain run` ("" => first compiled-in)
  NetworkConfig network;
  GCaLConfig g_cal;
  StimulusConfig stimulus;
  RecordConfig record;
  CompareConfig compare;
  SpikingConfig spiking;                  // family spiking_network (core/config/spiking_config.hpp)
  ModelSettings settings;                 // family model_tables: the model's declared keys, "table.key"

  bool spiking_family() const { return family == "spiking_network"; }
  bool declared_family() const { return family == "model_tables"; }
  // The value of a model option: the file's or the CLI's, else `fallback`.
  std::string option(const std::string& key, const std::string& fallback) const;
  void set_option(const std::string& key, const std::string& value);
};

// `models` names the kinds and their tables (models/registry.hpp: model_catalog()).
ExperimentConfig load_experiment(const std::filesystem::path& file, const ModelCatalog& models);
ExperimentConfig parse_experiment(const std::string& toml_text, const std::filesystem::path& source_name,
                                  const ModelCatalog& models);

}  // namespace kbrain
