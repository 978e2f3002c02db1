#pragma once
// `kbrain run` / `kbrain compare` for spiking-network experiments (model.kind = lif | izhikevich | hh).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/config/experiment_config.hpp"

namespace kbrain {

int cmd_run_spiking(const ExperimentConfig& cfg, const std::string& backend, Precision precision,
                    std::int64_t steps_override, const std::filesystem::path& out_dir);
int cmd_compare_spiking(const ExperimentConfig& cfg, const std::vector<std::string>& backends,
                        const std::vector<Precision>& precisions, std::vector<std::int64_t> sizes,
                        std::int64_t steps_override, std::int64_t budget, const std::filesystem::path& out_dir);

}  // namespace kbrain
