#pragma once
// Hook for experiment_config.cpp: reads the spiking tables of an experiment (toml++: host-only).
#include <filesystem>

#include "core/config/experiment_config.hpp"
#include "core/config/toml_reader.hpp"

namespace kbrain::config_detail {

// [model] keys other than kind and [model.parameters] (parameter_set, integrator, synapse, cortex_hh methods),
// with the choices of the kind's schema.
void read_spiking_model(TableReader& model, const ModelSchema& schema, ExperimentConfig& cfg);
// [network], [[input]], [record], [compare] for a spiking model; [simulation] has been read.
void read_spiking_tables(TableReader& root, ExperimentConfig& cfg, const ModelSchema& schema);

// Whether the file describes its network as [[population]] / [[projection]] tables.
bool has_population_tables(TableReader& root);
// [[population]], [[projection]], and from [network] (may be null) scale, n_scaling, k_scaling.
void read_population_network(TableReader& root, TableReader* network, SpikingConfig& s);

}  // namespace kbrain::config_detail
