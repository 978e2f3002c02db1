#pragma once
// What the ranks of a multi-rank adex_costa run exchange each step (the rows are split in contiguous blocks of
// kRowsPerBlock; every rank integrates every neuron and draws every flag itself, from the counter RNG):
//   - the m̄ partial sums and counts of every row block, in block order, so every rank sums all blocks in the same
//     fixed order as one process does: m̄ is bit-identical for any rank count;
//   - per column the winning (largest) presynaptic row and its current, so every rank sets the same I.
// The interface keeps MPI out of the model; adex_mpi_exchange.hpp implements it over MPI.
#include <cstdint>
#include <utility>
#include <vector>

namespace kbrain::adex {

class AdexExchange {
 public:
  virtual ~AdexExchange() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  // Every rank passes its own blocks' sums and counts; all_* receive every block's, in block order.
  virtual void gather_blocks(const double* sums, const long long* counts, std::int64_t blocks,
                             std::vector<double>& all_sums, std::vector<long long>& all_counts) = 0;
  // In place, per column: rows[j] = the largest winning row over all ranks (-1: none), currents[j] its current.
  virtual void reduce_winners(long long* rows, double* currents, std::int64_t columns) = 0;
};

// The rows of rank `rank` of `ranks`: whole blocks, as even as blocks allow. {first row, rows}.
inline std::pair<std::int64_t, std::int64_t> rank_rows(std::int64_t n_pre, std::int64_t block, int rank, int ranks) {
  const std::int64_t blocks = (n_pre + block - 1) / block;
  const std::int64_t b0 = blocks * rank / ranks, b1 = blocks * (rank + 1) / ranks;
  const std::int64_t first = b0 * block, last = b1 * block < n_pre ? b1 * block : n_pre;
  return {first, last > first ? last - first : 0};
}

}  // namespace kbrain::adex
