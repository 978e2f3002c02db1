#pragma once
// Per-cell soma low-threshold Ca conductance g_CaL: constant, uniform in [low, high) from the counter-based RNG keyed
// on (seed, cell) — the same values whatever backend or partitioning — or read from a file.
#include <cstdint>
#include <vector>

#include "core/config/experiment_config.hpp"

namespace kbrain {

std::vector<double> make_g_cal(const GCaLConfig& cfg, std::int64_t cells);

}  // namespace kbrain
