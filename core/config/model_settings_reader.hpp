#pragma once
// Reads the tables a model declares (ModelSchema::tables) into cfg.settings (toml++: host-only).
#include <filesystem>

#include "core/config/experiment_config.hpp"
#include "core/config/toml_reader.hpp"

namespace kbrain::config_detail {

// The keys of `spec` in table `t` (absent keys take their defaults; a required one missing is an error).
void read_declared_keys(TableReader& t, const TableSpec& spec, ModelSettings& out, const std::filesystem::path& base);
// Every declared table of `schema` other than "simulation" (read with [simulation]); unknown keys are rejected.
void read_declared_tables(TableReader& root, const ModelSchema& schema, ExperimentConfig& cfg,
                          const std::filesystem::path& base);

}  // namespace kbrain::config_detail
