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
  // Model options of [simulation] (ModelSchema::options) as chosen for this run: the file's, overridden by the CLI.
  std::vector<std::pair<std::string, std::string>> options;

  std::string option(const std::string& key, const std::string& fallback) const {
    for (const auto& [k, v] : options)
      if (k == key) return v;
    return fallback;
  }
};

}  // namespace kbrain
