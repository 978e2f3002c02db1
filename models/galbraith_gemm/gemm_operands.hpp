#pragma once
// How the operands of C = op(A)·op(B) are stored: row-major, op(A) = A (m x k) or Aᵀ (A stored k x m), op(B) = B
// (k x n) or Bᵀ (B stored n x k); the Gram product A·Aᵀ has one operand, A stored m x k. A stored block of an
// operand is a pointer, a row pitch and the stored rows and columns: what one strided copy moves.
#include <cstdint>

#include "models/galbraith_gemm/gemm_partition.hpp"

namespace kbrain::galbraith {

struct GemmOperands {
  GemmShape shape;
  bool transpose_a = false, transpose_b = false;

  std::int64_t a_rows() const { return transpose_a ? shape.k : shape.m; }
  std::int64_t a_cols() const { return transpose_a ? shape.m : shape.k; }
  std::int64_t b_rows() const { return transpose_b ? shape.n : shape.k; }
  std::int64_t b_cols() const { return transpose_b ? shape.k : shape.n; }
  const char* op_a() const { return transpose_a ? "T" : "N"; }
  const char* op_b() const { return shape.gram ? "T" : (transpose_b ? "T" : "N"); }
};

template <class Real>
struct StoredBlock {
  const Real* p;
  std::int64_t pitch, rows, cols;
};

// The stored part of A that rows [i0, i0+rows) of op(A) and the inner range [l0, l0+width) come from.
template <class Real>
StoredBlock<Real> a_block(const GemmOperands& o, const Real* a, const GemmBlock& b) {
  if (o.transpose_a) return {a + b.l0 * o.shape.m + b.i0, o.shape.m, b.width, b.rows};
  return {a + b.i0 * o.shape.k + b.l0, o.shape.k, b.rows, b.width};
}
// The stored part of B for the inner range [l0, l0+width) and every column of C.
template <class Real>
StoredBlock<Real> b_block(const GemmOperands& o, const Real* bm, const GemmBlock& b) {
  if (o.transpose_b) return {bm + b.l0, o.shape.k, o.shape.n, b.width};
  return {bm + b.l0 * o.shape.n, o.shape.n, b.width, o.shape.n};
}

}  // namespace kbrain::galbraith
