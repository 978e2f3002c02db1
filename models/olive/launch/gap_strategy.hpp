#pragma once
// How an IO network's steps reach its gap junctions: one strategy value, chosen once (choose_gap_strategy) from the
// network's shape, the backend kind and the precision, as GeNN chooses a presynaptic-update strategy: each named
// strategy has a compatibility predicate (may it run this network at all) and a preference (does Auto take it);
// Auto takes the first compatible preferred strategy in the order of kGapStrategies, a request narrows the choice.
// Host-side and pure: unit-testable without a backend.
//   mesh                        neighbours from the index (mesh2d), one step per launch
//   mesh, 2 steps per launch    the same, two steps per launch (io_mesh_pair.hpp); GPU backends in float
//   CSR (fused)                 each cell sums its CSR row inside the step kernel
//   CSR split                   a vector-lane group per cell sums the row in a kernel of its own (io_gap_split.hpp)
//   tiled                       lattice networks: a brick's surroundings staged in team scratch (io_gap_tiled.hpp)
#include <cstdint>
#include <stdexcept>
#include <string>

#include "models/olive/launch/io_step_launch.hpp"

namespace kbrain::olive {

// The user's choice ([simulation] gap_kernel, --gap-kernel). Mesh networks run a mesh strategy whatever the request.
enum class GapKernelRequest { Auto, Fused, Split, Tiled };

// "auto" | "fused" | "split" | "tiled"; throws std::invalid_argument otherwise.
inline GapKernelRequest parse_gap_kernel_request(const std::string& s) {
  if (s == "auto") return GapKernelRequest::Auto;
  if (s == "fused") return GapKernelRequest::Fused;
  if (s == "split") return GapKernelRequest::Split;
  if (s == "tiled") return GapKernelRequest::Tiled;
  throw std::invalid_argument("gap kernel '" + s + "': expected auto | fused | split | tiled");
}

enum class GapKernel { Mesh, MeshPairs, Fused, Split, Tiled };

struct GapStrategy {
  GapKernel kernel = GapKernel::Fused;
  // GPU backends, fused CSR step: blocks per SM of its launch bounds (2 or 4; csr_step_min_blocks).
  int csr_min_blocks = GpuLaunch::csr_step_min_blocks;
  // One-step mesh and precomputed-current launches through the backend's chained launch where it declares one
  // (CUDA: programmatic dependent launch, bit-identical results); elsewhere Kokkos::parallel_for. Default: in
  // double, where it measured faster; in float it did not.
  bool chained_launch = false;
  // Tiled: the cut (brick 0: the largest cube that fits the team scratch memory, default_tiling).
  int tile_brick = 0, tile_halo = 0;
};

// What the chooser reads of the network, the backend and the precision.
struct GapChoiceInput {
  std::int64_t cells = 0;
  double junctions = 0;   // CSR junctions (0 for a mesh)
  bool mesh = false;      // the network runs the mesh kernel
  bool lattice = false;   // cells on a cubic lattice (gaussian3d)
  bool gpu = false;       // Backend::is_gpu
  bool double_precision = false;
  double degree() const { return cells > 0 ? junctions / double(cells) : 0.0; }
};

// Split and tiled pay off from this many junctions per cell on GPU backends (split in float only: in double it was
// no faster than fused; tiled in both, where the lattice allows it). At lower densities both were slower.
inline constexpr double kSplitMinDegree = 500;
inline constexpr double kTiledMinDegree = 500;

// Whether Auto tiles a network of this shape (the memory plan sizes the tiled lists with it).
inline bool tiles_by_default(bool gpu, bool lattice, double junctions, double cells) {
  return gpu && lattice && junctions >= kTiledMinDegree * cells;
}

struct GapStrategyRule {
  GapKernel kernel;
  const char* name;                                 // gap_kernel_name
  bool (*compatible)(const GapChoiceInput&);        // can run the network
  bool (*preferred)(const GapChoiceInput&);         // taken by Auto (when compatible)
};

// In the order Auto tries them.
inline constexpr GapStrategyRule kGapStrategies[] = {
    {GapKernel::MeshPairs, "mesh, 2 steps per launch", [](const GapChoiceInput& in) { return in.mesh; },
     [](const GapChoiceInput& in) { return in.gpu && !in.double_precision; }},
    {GapKernel::Mesh, "mesh", [](const GapChoiceInput& in) { return in.mesh; },
     [](const GapChoiceInput&) { return true; }},
    {GapKernel::Tiled, "tiled", [](const GapChoiceInput& in) { return !in.mesh && in.lattice && in.cells > 0; },
     [](const GapChoiceInput& in) { return tiles_by_default(in.gpu, true, in.junctions, double(in.cells)); }},
    {GapKernel::Split, "CSR split", [](const GapChoiceInput& in) { return !in.mesh && in.cells > 0; },
     [](const GapChoiceInput& in) {
       return in.gpu && !in.double_precision && in.junctions >= kSplitMinDegree * double(in.cells);
     }},
    {GapKernel::Fused, "CSR", [](const GapChoiceInput& in) { return !in.mesh; },
     [](const GapChoiceInput&) { return true; }},
};

inline const GapStrategyRule& gap_strategy_rule(GapKernel k) {
  for (const GapStrategyRule& r : kGapStrategies)
    if (r.kernel == k) return r;
  throw std::logic_error("unknown gap kernel");
}

// The name written into run.json (tiled: without its cut; IoSimulation::strategy_name adds it).
inline std::string gap_kernel_name(GapKernel k) { return gap_strategy_rule(k).name; }

// The strategy for `in` under `request`. A mesh network runs a mesh strategy whatever the request; Fused, Split and
// Tiled requests take that strategy where it is compatible (Split on an empty network: Fused). Throws
// std::invalid_argument for a tiled request without a lattice.
inline GapStrategy choose_gap_strategy(const GapChoiceInput& in, GapKernelRequest request = GapKernelRequest::Auto) {
  if (request == GapKernelRequest::Tiled && !in.lattice)
    throw std::invalid_argument("the tiled gap kernel needs a lattice network (gaussian3d)");
  GapStrategy s;
  s.csr_min_blocks = csr_step_min_blocks(in.double_precision, in.degree());
  s.chained_launch = in.double_precision;
  const GapKernel wanted = request == GapKernelRequest::Split   ? GapKernel::Split
                           : request == GapKernelRequest::Tiled ? GapKernel::Tiled
                                                                : GapKernel::Fused;
  for (const GapStrategyRule& r : kGapStrategies) {
    if (!r.compatible(in)) continue;
    const bool mesh_rule = r.kernel == GapKernel::Mesh || r.kernel == GapKernel::MeshPairs;
    const bool take = request == GapKernelRequest::Auto || mesh_rule ? r.preferred(in) : r.kernel == wanted;
    if (take) {
      s.kernel = r.kernel;
      return s;
    }
  }
  s.kernel = GapKernel::Fused;  // a requested strategy the network cannot run (split on an empty network)
  return s;
}

}  // namespace kbrain::olive
