#pragma once
// Applied dendritic current I_app per update step (0-based index n of the update n -> n+1).
#include <cstdint>
#include <memory>
#include <vector>

#include "core/config/experiment_config.hpp"

namespace kbrain {

class Stimulus {
 public:
  virtual ~Stimulus() = default;
  // Current added to every dendrite during update `step`.
  virtual double uniform_current(std::int64_t step) const = 0;
  // Per-cell current for update `step` (cell_file stimulus), or nullptr. Steps must be asked in increasing order;
  // a file that ends early or has a line of the wrong length throws std::runtime_error naming file and line.
  virtual const std::vector<double>* per_cell_current(std::int64_t step) { (void)step; return nullptr; }
  virtual bool has_per_cell() const { return false; }
};

// Validates against the network size; throws ConfigError / std::runtime_error (file problems) with a clear message.
std::unique_ptr<Stimulus> make_stimulus(const StimulusConfig& cfg, std::int64_t cells, std::int64_t steps);

// The stimulus as a plan holds it, read and checked before any output exists: a schedule file's values are read into
// `schedule` (and `file` cleared, so a run does not read it again); a cell file's first line is parsed and its lines
// are counted against `steps` (its other lines are checked as the run streams them). Throws as make_stimulus does.
StimulusConfig checked_stimulus(const StimulusConfig& cfg, std::int64_t cells, std::int64_t steps);

}  // namespace kbrain
