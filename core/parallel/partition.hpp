#pragma once
// Splitting the cells of an IO network over MPI ranks (docs/mpi.md). Host-only, no MPI: the same code builds the
// partition on every rank (deterministic), and the unit tests build every rank's view in one process.
//   blocks : contiguous id ranges, sizes differ by at most one (uneven N allowed)
//   tiles  : 2-D tiles of a rows x cols mesh (id = row * cols + col), a pr x pc grid of tiles
//   bricks : 3-D bricks of the gaussian3d lattice (id = x b^2 + y b + z, side b), a px x py x pz grid of bricks
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kbrain {

struct Partition {
  enum class Kind { Blocks, Tiles2d, Bricks3d };
  Kind kind = Kind::Blocks;
  int ranks = 1;
  std::int64_t cells = 0;
  std::array<int, 3> grid = {1, 1, 1};  // tiles: (pr, pc, 1); bricks: (px, py, pz); blocks: (ranks, 1, 1)
  std::vector<std::int32_t> owner;      // owner rank of every global cell

  const char* kind_name() const;
  // Global ids owned by `rank`, ascending.
  std::vector<std::int64_t> owned_cells(int rank) const;
  std::vector<std::int64_t> counts() const;  // cells per rank
};

// Balanced split of n items into k parts: part p is [split_begin(n, k, p), split_begin(n, k, p + 1)).
inline std::int64_t split_begin(std::int64_t n, std::int64_t k, std::int64_t p) {
  return p * (n / k) + (p < n % k ? p : n % k);
}

Partition partition_blocks(std::int64_t cells, int ranks);
Partition partition_tiles2d(std::int64_t rows, std::int64_t cols, int ranks);
Partition partition_bricks3d(std::int64_t cells, std::int64_t side, int ranks);

// "blocks" | "tiles" | "bricks" | "auto"; throws std::invalid_argument on anything else.
enum class PartitionChoice { Auto, Blocks, Tiles2d, Bricks3d };
PartitionChoice parse_partition_choice(const std::string& name);

}  // namespace kbrain
