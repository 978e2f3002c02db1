#include "models/galbraith_gemm/gemm_plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/config/model_settings.hpp"

namespace kbrain::galbraith {

GemmPartition gemm_partition_for(const GemmPlan& plan, double budget_bytes, std::int64_t element_bytes) {
  const std::int64_t S = block_elements(budget_bytes, plan.memory_work, element_bytes);
  return solve_partition(plan.shape, plan.double_buffered ? S / 2 : S);
}

std::string gemm_budget_refusal(const GemmPlan& plan, double budget_bytes, std::int64_t element_bytes) {
  const double least = double(minimum_block_elements(plan.shape)) * double(element_bytes) *
                           (plan.double_buffered ? 2.0 : 1.0) + plan.memory_work;
  return fmt::format("a device budget of {:.0f} bytes fits no partition of the {} x {} x {} {} product in {} bytes "
                     "per element ({} buffering, {:.0f} work bytes): it needs at least {:.0f} bytes ({:.3f} GiB)",
                     budget_bytes, plan.shape.m, plan.shape.n, plan.shape.k, plan.shape.gram ? "Gram" : "general",
                     element_bytes, plan.double_buffered ? "double" : "single", plan.memory_work, least,
                     least / 1073741824.0);
}

GemmPlan make_gemm_plan(const ExperimentConfig& cfg, const PlanRequest& request) {
  GemmPlan plan;
  plan.config = &cfg;
  const ModelSettings& s = cfg.settings;
  plan.steps = request.steps > 0 ? request.steps : cfg.steps;
  plan.dt_ms = cfg.dt;
  plan.shape.gram = s.text("gemm.product") == "gram";
  plan.shape.m = request.size > 0 ? request.size : s.integer("gemm.m");
  plan.shape.n = plan.shape.gram ? plan.shape.m : (request.size > 0 ? request.size : s.integer("gemm.n"));
  plan.shape.k = request.density > 0 ? static_cast<std::int64_t>(request.density)
                                     : (request.size > 0 && !plan.shape.gram ? request.size : s.integer("gemm.k"));
  if (request.density > 0 && double(plan.shape.k) != request.density)
    throw ConfigError(fmt::format("{}: compare.densities are inner dimensions k (whole numbers); got {}",
                                  cfg.source.string(), request.density));
  plan.transpose_a = s.text("gemm.op_a") == "t";
  plan.transpose_b = s.text("gemm.op_b") == "t";
  if (plan.shape.gram && (plan.transpose_a || plan.transpose_b))
    s.fail("gemm.product", "product = \"gram\" is A·Aᵀ of A stored m x k: op_a and op_b must stay \"n\"");
  plan.seed = static_cast<std::uint64_t>(s.integer("gemm.seed"));
  plan.device_budget = s.number("simulation.device_budget");
  plan.memory_work = s.number("simulation.memory_work");
  const std::string buffering = request.variant.empty() ? s.text("simulation.buffering") : request.variant;
  plan.double_buffered = buffering == "double";

  // Entries are indexed with 64 bits everywhere; the product of two dimensions must stay well inside that.
  const double largest = std::max({double(plan.shape.m) * double(plan.shape.k), double(plan.shape.k) * double(plan.shape.n),
                                   double(plan.shape.m) * double(plan.shape.n)});
  if (largest > 4.0e15)
    s.fail("gemm.k", fmt::format("a {} x {} x {} product has a matrix of {:.3g} entries; at most 4e15",
                                 plan.shape.m, plan.shape.n, plan.shape.k, largest));
  if (plan.device_budget > 0) {
    const std::int64_t bytes = cfg.precision == Precision::Float ? 4 : 8;
    if (!gemm_partition_for(plan, plan.device_budget, bytes).feasible())
      s.fail("simulation.device_budget", gemm_budget_refusal(plan, plan.device_budget, bytes));
  }

  plan.cells = plan.c_elements();
  plan.connections = plan.flops();
  plan.size_label = fmt::format("{}{}x{}x{}{} {}", plan.shape.gram ? "A·Aᵀ " : "", plan.shape.m, plan.shape.n,
                                plan.shape.k,
                                plan.transpose_a || plan.transpose_b
                                    ? fmt::format(" ({}{})", plan.transpose_a ? "Aᵀ" : "A", plan.transpose_b ? "Bᵀ" : "B")
                                    : std::string(),
                                buffering);
  plan.work_per_step = plan.flops() / 64.0;  // compare's serial budget counts cell-steps; a GEMM step is indivisible
  plan.probe_var = 0;
  plan.record_spikes = false;
  return plan;
}

}  // namespace kbrain::galbraith
