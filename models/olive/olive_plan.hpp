#pragma once
// The plan of an inferior-olive run: constants, the gap-junction network (or the tables to generate it on the
// backend), per-cell g_CaL and the gap-kernel request; prepared on the host once, shared by every backend/precision.
#include <memory>
#include <string>
#include <vector>

#include "core/network/gap_network.hpp"
#include "core/network/random_network.hpp"
#include "models/olive/cell/io_parameters.hpp"
#include "models/runtime/run_plan.hpp"

namespace kbrain::olive {

struct OlivePlan : RunPlan {
  olive::IoParameters params;
  std::shared_ptr<const GapNetwork> network;  // uniform/gaussian3d: only `cells` is set (the CSR is generated later)
  std::shared_ptr<const RandomNetworkTables> generator;  // uniform/gaussian3d: generated on the simulating backend
  std::vector<double> g_cal;
  StimulusConfig stimulus;  // checked while planning; a schedule file's values read in (core/inputs/stimulus.hpp)
  bool use_mesh_kernel = true;       // mesh2d: neighbours from the index (false: the CSR kernels)
  std::string gap_kernel = "auto";   // [simulation] gap_kernel / --gap-kernel: auto | fused | split | tiled
};

// Builds network, g_CaL and parameters for `cfg`; `request.size` > 0 replaces the network size (mesh side, or cells
// of all_to_all/uniform/gaussian3d) and `request.density` > 0 network.density (uniform/gaussian3d). Reads every input
// file before any output exists. Throws ConfigError naming the file and key.
OlivePlan make_olive_plan(const ExperimentConfig& cfg, const PlanRequest& request);
// The plan keeps a pointer to its experiment: a temporary one would dangle.
OlivePlan make_olive_plan(const ExperimentConfig&& cfg, const PlanRequest& request) = delete;

// Evenly spread probe cells (always includes cell 0 and the last cell).
std::vector<std::int64_t> spread_cells(std::int64_t cells, std::int64_t count);

}  // namespace kbrain::olive
