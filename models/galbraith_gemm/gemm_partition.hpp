#pragma once
// The thesis' partition of an out-of-core product C = op(A)·op(B) (Galbraith 2010 §5.2, Algorithm 5, as its code
// runs it): the rows of C are cut into t_m blocks of at most m_max rows and the inner dimension into t_k blocks of
// at most k_max, so that one A block, one B block and one C block fit in S elements of device memory:
//   S >= m_max·k_max + k_max·n + m_max·n                          (5.7)
//   k_max = floor((S - m_max·n) / (m_max + n)),  m_max = ceil(m / t_m)   (5.10, 5.11)
// t_m is raised from 1 while the number of block copies t = 2·t_m·t_k + t_m falls (t over t_m is roughly convex).
// The Gram product A·Aᵀ (the decoder's Γ) keeps all m rows and copies each A block once:
//   S >= m·k_max + m²,  k_max = floor(S/m) - m,  t = t_k + 1       (5.13, 5.14)
// Host-only arithmetic; gemm_partition_test vectors are the spec's.
#include <cstdint>
#include <vector>

namespace kbrain::galbraith {

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;  // C is m x n, the inner dimension k
  bool gram = false;                 // C = A·Aᵀ (n == m, one operand)
};

struct GemmPartition {
  std::int64_t m_max = 0, k_max = 0;  // block rows of C, block width of the inner dimension
  std::int64_t t_m = 0, t_k = 0;      // blocks along m and k
  std::int64_t transfers = 0;         // block copies: 2·t_m·t_k + t_m (general), t_k + 1 (Gram)
  std::int64_t elements = 0;          // device elements the blocks take (<= the S they were solved for)
  bool feasible() const { return t_m > 0; }
};

// Elements of device memory a budget leaves for blocks: (budget_bytes - work_bytes) / element_bytes, the thesis'
// S (work_bytes: its 15 MiB "memory_work"); 0 when the budget does not cover the work bytes.
std::int64_t block_elements(double budget_bytes, double work_bytes, std::int64_t element_bytes);

// One block of Algorithm 4's loop: rows [i0, i0 + rows) of C (row block `row_block`), inner range [l0, l0 + width).
struct GemmBlock {
  std::int64_t row_block = 0, i0 = 0, rows = 0, l0 = 0, width = 0;
  bool first_inner = false, last_inner = false;
};

// Algorithm 5 (general) or 5.13-5.14 (Gram) for S elements; !feasible() when not even one row block fits.
GemmPartition solve_partition(const GemmShape& shape, std::int64_t S);

// The smallest S for which solve_partition(shape, S) is feasible (one row and one column of the inner dimension
// per block): for "needs at least ..." messages.
std::int64_t minimum_block_elements(const GemmShape& shape);

// The blocks of a feasible partition in the loop's order: row blocks outer, inner blocks inner.
std::vector<GemmBlock> gemm_blocks(const GemmShape& shape, const GemmPartition& p);

}  // namespace kbrain::galbraith
