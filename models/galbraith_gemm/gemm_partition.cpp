#include "models/galbraith_gemm/gemm_partition.hpp"

#include <algorithm>
#include <limits>

namespace kbrain::galbraith {

namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// One t_m of Algorithm 5: the widest k blocks that fit beside m_max rows of A and C and the whole width n of B.
GemmPartition general_for(const GemmShape& s, std::int64_t S, std::int64_t t_m) {
  GemmPartition p;
  const std::int64_t m_max = ceil_div(s.m, t_m);
  // m_max·n may exceed S (no k block fits); compare in double to avoid overflow at absurd sizes.
  if (double(m_max) * double(s.n) >= double(S)) return p;
  const std::int64_t k_max = std::min(s.k, (S - m_max * s.n) / (m_max + s.n));
  if (k_max < 1) return p;
  p.m_max = m_max;
  p.k_max = k_max;
  p.t_m = ceil_div(s.m, m_max);  // ceil(m / ceil(m / t_m)) <= t_m: the blocks actually needed
  p.t_k = ceil_div(s.k, k_max);
  p.transfers = 2 * p.t_m * p.t_k + p.t_m;
  p.elements = m_max * k_max + k_max * s.n + m_max * s.n;
  return p;
}
}  // namespace

std::int64_t block_elements(double budget_bytes, double work_bytes, std::int64_t element_bytes) {
  const double free = budget_bytes - work_bytes;
  if (!(free > 0) || element_bytes <= 0) return 0;
  const double s = free / double(element_bytes);
  return s >= double(std::numeric_limits<std::int64_t>::max() / 4) ? std::numeric_limits<std::int64_t>::max() / 4
                                                                    : static_cast<std::int64_t>(s);
}

GemmPartition solve_partition(const GemmShape& s, std::int64_t S) {
  GemmPartition best;
  if (s.m < 1 || s.n < 1 || s.k < 1 || S < 1) return best;
  if (s.gram) {
    // All m rows stay: C (m x m) and an m x k_max block of A.
    if (double(s.m) * double(s.m) >= double(S)) return best;
    const std::int64_t k_max = std::min(s.k, S / s.m - s.m);
    if (k_max < 1) return best;
    best.m_max = s.m;
    best.k_max = k_max;
    best.t_m = 1;
    best.t_k = ceil_div(s.k, k_max);
    best.transfers = best.t_k + 1;
    best.elements = s.m * k_max + s.m * s.m;
    return best;
  }
  // Raise t_m from 1: skip the counts where nothing fits, then continue while the transfers fall.
  for (std::int64_t t_m = 1; t_m <= s.m; ++t_m) {
    const GemmPartition p = general_for(s, S, t_m);
    if (!p.feasible()) {
      if (best.feasible()) break;  // fewer rows per block only adds transfers from here
      continue;
    }
    if (best.feasible() && p.transfers >= best.transfers) break;
    best = p;
  }
  return best;
}

std::int64_t minimum_block_elements(const GemmShape& s) {
  if (s.gram) return s.m * s.m + s.m;  // k_max = S/m - m >= 1
  return 2 * s.n + 1;                   // m_max = 1: k_max = (S - n)/(1 + n) >= 1
}

std::vector<GemmBlock> gemm_blocks(const GemmShape& s, const GemmPartition& p) {
  std::vector<GemmBlock> blocks;
  if (!p.feasible()) return blocks;
  for (std::int64_t r = 0; r < p.t_m; ++r)
    for (std::int64_t l = 0; l < p.t_k; ++l) {
      GemmBlock b;
      b.row_block = r;
      b.i0 = r * p.m_max;
      b.rows = std::min(p.m_max, s.m - b.i0);
      b.l0 = l * p.k_max;
      b.width = std::min(p.k_max, s.k - b.l0);
      b.first_inner = l == 0;
      b.last_inner = l == p.t_k - 1;
      blocks.push_back(b);
    }
  return blocks;
}

}  // namespace kbrain::galbraith
