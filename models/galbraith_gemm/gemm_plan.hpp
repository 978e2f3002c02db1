#pragma once
// The plan of a galbraith_gemm run: the product's shape and operators, the device budget and the buffering. The
// matrices themselves are drawn on each run's host memory from the counter RNG (the same entries for every backend;
// float runs round them).
#include <cstdint>
#include <string>

#include "core/config/experiment_config.hpp"
#include "models/galbraith_gemm/gemm_operands.hpp"
#include "models/galbraith_gemm/gemm_partition.hpp"
#include "models/runtime/run_plan.hpp"

namespace kbrain::galbraith {

struct GemmPlan : RunPlan {
  GemmShape shape;
  bool transpose_a = false, transpose_b = false;  // op(A) = Aᵀ, op(B) = Bᵀ (gram: A·Aᵀ, neither set)
  std::uint64_t seed = 1;
  double device_budget = 0;   // bytes (0: the device's free memory)
  double memory_work = 15728640;
  bool double_buffered = true;

  GemmOperands operands() const { return {shape, transpose_a, transpose_b}; }
  double flops() const { return 2.0 * double(shape.m) * double(shape.n) * double(shape.k); }
  // Elements of A and B as stored, and of C.
  std::int64_t a_elements() const { return shape.m * shape.k; }
  std::int64_t b_elements() const { return shape.gram ? 0 : shape.k * shape.n; }
  std::int64_t c_elements() const { return shape.m * shape.n; }
};

GemmPlan make_gemm_plan(const ExperimentConfig& cfg, const PlanRequest& request);
// The plan keeps a pointer to its experiment: a temporary one would dangle.
GemmPlan make_gemm_plan(const ExperimentConfig&& cfg, const PlanRequest& request) = delete;

// The partition a GPU run uses for `element_bytes` within `budget_bytes` (half of it per block set when double
// buffered); !feasible() when none fits.
GemmPartition gemm_partition_for(const GemmPlan& plan, double budget_bytes, std::int64_t element_bytes);

// "... needs at least N bytes": what the refusals say when a budget fits no partition.
std::string gemm_budget_refusal(const GemmPlan& plan, double budget_bytes, std::int64_t element_bytes);

}  // namespace kbrain::galbraith
