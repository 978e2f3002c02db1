#pragma once
// Hook for experiment_config.cpp: reads the spiking tables of an experiment (toml++: host-only).
#include <filesystem>

#include "core/config/experiment_config.hpp"
#include "core/config/toml_reader.hpp"

namespace kbrain::config_detail {

// [model] keys other than kind (parameter_set, integrator, synapse, [model.parameters]).
void read_spiking_model(TableReader& model, ExperimentConfig& cfg);
// [network], [[input]], [record], [compare] for a spiking model; [simulation] has been read.
void read_spiking_tables(TableReader& root, ExperimentConfig& cfg);

}  // namespace kbrain::config_detail
