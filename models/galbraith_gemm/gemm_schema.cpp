#include "models/galbraith_gemm/gemm_schema.hpp"

#include <limits>

namespace kbrain::galbraith {

ModelSchema gemm_schema() {
  const double inf = std::numeric_limits<double>::infinity();
  ModelSchema s;
  s.kind = "galbraith_gemm";
  s.summary = "Galbraith 2010 CUSUMMA: C = op(A)·op(B) from host memory through a device budget (Algorithm 5), "
              "the library GEMM on every backend";
  s.family = "model_tables";
  s.variables = {{kGemmVarNames[0], "1"}};
  s.parameter_sets = {"cusumma"};
  s.variant_setting = "simulation.buffering";
  s.tables.push_back(TableSpec{
      "simulation",
      {SettingSpec::number("device_budget", 0, inf, 0,
                           "bytes of device memory the blocks may use, work bytes included (0: the device's free "
                           "memory); the study's cards: 536870912 (512 MiB), 939524096 (896 MiB)"),
       SettingSpec::number("memory_work", 0, inf, 15728640,
                           "bytes of the budget kept for the library's work space (the study's 15 MiB)"),
       SettingSpec::choice("buffering", {"double", "single"},
                           "double: two sets of blocks, the next blocks copied while the current ones multiply "
                           "(the partition is solved for half the budget); single: the study's loop, one set, "
                           "copy then multiply")}});
  s.tables.push_back(TableSpec{
      "gemm",
      {SettingSpec::integer("m", 1, 1e9, 1000, "rows of C and of op(A); compare.sizes sets m = n = k"),
       SettingSpec::integer("n", 1, 1e9, 1000, "columns of C and of op(B) (product = gram: n = m)"),
       SettingSpec::integer("k", 1, 1e12, 1000, "the inner dimension; compare.densities sweeps it"),
       SettingSpec::choice("op_a", {"n", "t"}, "op(A): n = A (stored m x k, row-major), t = Aᵀ (stored k x m)"),
       SettingSpec::choice("op_b", {"n", "t"}, "op(B): n = B (stored k x n), t = Bᵀ (stored n x k)"),
       SettingSpec::choice("product", {"general", "gram"},
                           "general: op(A)·op(B); gram: A·Aᵀ (the decoder's Γ: one operand, each block copied once)"),
       SettingSpec::integer("seed", 0, 9.007199254740992e15, 1,
                            "counter-RNG seed of A and B (entries uniform in [-1, 1))")}});
  return s;
}

}  // namespace kbrain::galbraith
