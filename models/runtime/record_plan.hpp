#pragma once
// The [record] part of a plan that models with tables of their own share: the file choices and interval, the
// recorded variables by name, and the recorded indices (a list, or "all" up to 2^20 values per sample), checked
// against the count of what the variables index. Host-only.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "core/config/experiment_config.hpp"
#include "models/runtime/run_plan.hpp"

namespace kbrain {

// Files, interval and spikes of [record]; returns whether traces are asked for (cells listed or "all").
inline bool apply_record_choices(const RecordConfig& r, RunPlan& plan) {
  plan.record_spikes = r.spikes;
  plan.record_csv = r.csv;
  plan.record_binary = r.binary;
  plan.record_sonata = r.sonata;
  plan.trace_every = std::max<std::int64_t>(1, r.every);
  return !r.cells.empty() || r.all_cells;
}

// record.variables as indices into `names` (validated by the schema already).
template <std::size_t N>
void record_variables(const RecordConfig& r, const char* const (&names)[N], RunPlan& plan) {
  for (const auto& name : r.variables) {
    plan.trace_vars.push_back(static_cast<int>(std::find(std::begin(names), std::end(names), name) - std::begin(names)));
    plan.trace_var_names.push_back(name);
  }
}

// record.cells as indices below `count` (`what` names them in the message).
inline void record_indices(const ExperimentConfig& cfg, std::int64_t count, const std::string& what, RunPlan& plan) {
  const RecordConfig& r = cfg.record;
  if (r.all_cells) {
    if (count > (1 << 20))
      throw ConfigError(fmt::format("{}: record.cells = \"all\" would record {} values per sample; list indices",
                                    cfg.source.string(), count));
    for (std::int64_t i = 0; i < count; ++i) plan.trace_cells.push_back(i);
    return;
  }
  for (auto c : r.cells) {
    if (c >= count || c > std::numeric_limits<std::int32_t>::max())
      throw ConfigError(fmt::format("{}: record.cells: {} is out of range [0, {}) for the recorded {}",
                                    cfg.source.string(), c, count, what));
    plan.trace_cells.push_back(c);
  }
}

}  // namespace kbrain
