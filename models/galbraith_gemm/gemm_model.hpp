#pragma once
// Galbraith 2010's out-of-core matrix multiply (CUSUMMA) as a unit (models/registry.hpp lists it): kind
// "galbraith_gemm", its schema (gemm_schema.cpp), plan (gemm_plan.cpp), partition solver (gemm_partition.cpp) and
// simulation (gemm_simulation.hpp, one product per step). Compare columns: the partition, bytes moved, GFLOP/s,
// the link and in-core bounds, and the largest difference of sampled entries of C from the reference run.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/report/comparison_table.hpp"
#include "models/galbraith_gemm/gemm_plan.hpp"
#include "models/galbraith_gemm/gemm_schema.hpp"
#include "models/galbraith_gemm/gemm_simulation.hpp"

namespace kbrain::galbraith {

struct GalbraithGemmModel {
  using Plan = GemmPlan;
  template <class Backend, class Real>
  using Simulation = GemmSimulation<Backend, Real>;
  static constexpr const char* kCells = "entries of C";
  static constexpr const char* kConnections = "flops";
  static constexpr const char* kStrategy = "buffering";
  static constexpr bool kSpikeStatistics = false;
  static constexpr std::int64_t kProbeEvery = 1;
  static constexpr bool kBiologicalTime = false;  // a step is one product

  static std::vector<ModelSchema> schemas() { return {gemm_schema()}; }
  static Plan make_plan(const ExperimentConfig& cfg, const PlanRequest& r) { return make_gemm_plan(cfg, r); }

  // Entries of C spread over the whole matrix (compare.probe_cells of them, at least 16).
  static std::vector<std::int64_t> probe_cells(const Plan& p) {
    const std::int64_t total = p.c_elements();
    const std::int64_t wanted = std::min<std::int64_t>(total, std::max<std::int64_t>(16, p.config->compare.probe_cells));
    std::vector<std::int64_t> ids;
    for (std::int64_t k = 0; k < wanted; ++k) ids.push_back(static_cast<std::int64_t>(double(k) * double(total) / double(wanted)));
    return ids;
  }

  static std::vector<std::pair<std::string, std::string>> describe(const Plan& p) {
    return {{"product", p.shape.gram ? "gram: C = A·Aᵀ, A stored m x k" : "general: C = op(A)·op(B)"},
            {"storage", "row-major host matrices (A, B, C page-locked on GPUs); blocks copied by one strided DMA "
                        "each, no host packing pass"},
            {"partition", "Algorithm 5 as the study's code runs it: t = (A==B ? 1 : 2)·t_m·t_k + t_m, t_m raised "
                          "from 1 while t falls; Gram: k_max = S/m - m, t = t_k + 1"},
            {"buffering", p.double_buffered ? "double: the partition is solved for half the budget (two block sets)"
                                            : "single: the study's loop, the whole budget for one block set"},
            {"memory_work_bytes", fmt::format("{:.0f}", p.memory_work)},
            {"device_budget_bytes", p.device_budget > 0 ? fmt::format("{:.0f}", p.device_budget) : "free memory"},
            {"rows_not_swapped", "m < n is not swapped to the transposed product (the study requires m >= n): the "
                                 "partition cuts rows of C whatever their number"},
            {"entries", "A and B uniform in [-1, 1) from the counter RNG (seed, matrix, index); float rounds them"},
            {"library", "Kokkos Kernels gemm: cuBLAS on CUDA, the host BLAS on Serial (one thread) and OpenMP"}};
  }

  static std::vector<ReportColumn> agreement_columns(const Plan&) {
    return {{"buffering", "buffering", "text"},
            {"t_m", "t_m", "int"},
            {"t_k", "t_k", "int"},
            {"transfers", "transfers", "int"},
            {"gb_moved", "GB moved", "sig3"},
            {"flop_per_link_byte", "flop/B over the link", "sig3"},
            {"gflops", "GFLOP/s", "sig3"},
            {"link_s", "link s", "sig3"},
            {"in_core_gemm_s", "in-core GEMM s", "sig3"},
            {"bound_ratio", "÷ max(link, in-core)", "sig3"},
            {"max_rel_dC", "max |ΔC| / max |C|", "sig3"}};
  }
  static std::vector<ReportValue> agreement(const Plan& p, const RunRequest& req, const RunResult& r,
                                            const RunResult& ref, bool) {
    const std::size_t n = std::min({r.probes.size(), ref.probes.size(), req.probe_cells.size()});
    double diff = 0, scale = 0;
    for (std::size_t k = 0; k < n; ++k) {
      diff = std::max(diff, std::fabs(r.probes[k] - ref.probes[k]));
      scale = std::max(scale, std::fabs(ref.probes[k]));
    }
    auto value = [&](const char* key) {
      const double v = r.value(key, -1);
      return v >= 0 ? ReportValue::num(v) : ReportValue::missing();
    };
    const double steps = double(std::max<std::int64_t>(1, r.steps));
    const double moved = r.value("bytes_moved", -1);
    return {ReportValue::str(p.double_buffered ? "double" : "single"),
            value("t_m"),
            value("t_k"),
            value("transfers"),
            moved > 0 ? ReportValue::num(moved / steps / 1e9) : ReportValue::missing(),
            value("flop_per_link_byte"),
            value("gflops"),
            value("link_s"),
            value("in_core_gemm_s"),
            value("bound_ratio"),
            scale > 0 ? ReportValue::num(diff / scale) : ReportValue::missing()};
  }
};

}  // namespace kbrain::galbraith
