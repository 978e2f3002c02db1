#pragma once
// What one run must produce besides stepping: files (kbrain run), probes and spike lists (kbrain compare, tests).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kbrain {

struct RunRequest {
  std::filesystem::path out_dir;     // empty: no files
  bool write_trace = false, write_spikes = false;
  std::vector<std::int64_t> probe_cells;  // sampled every probe_every steps, variable plan.probe_var
  std::int64_t probe_every = 1;
  bool keep_spikes = true;           // spike events in the result (agreement, population statistics)
  bool progress = true;
  // Steps between checks of the plan's checked_vars for NaN/inf (0: only at the end, which is always checked).
  std::int64_t finite_check_every = 1000;
};

}  // namespace kbrain
