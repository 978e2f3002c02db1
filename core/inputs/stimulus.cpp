// Stimulus protocols (I_app per update step n, 0-based):
//   reference_pulse  amplitude for start <= n < stop, else 0
//   constant         value at every step
//   schedule         cfg.schedule[n], or line n+1 of cfg.file (one value per line) when cfg.schedule is empty;
//                    steps beyond the end of the schedule get 0
//   cell_file        line n+1 of cfg.file holds one value per cell; streamed one line at a time
// File formats: docs/network-formats.md.
#include "core/inputs/stimulus.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include "core/text/tokens.hpp"

namespace kbrain {
namespace {
using text::is_blank_char;
using text::parse_finite;
using text::split_tokens;



// Calls fn(token) for every whitespace-separated token of `line`.
template <class Fn>
void for_each_token(std::string_view line, Fn&& fn) {
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank_char(line[i])) ++i;
    const std::size_t begin = i;
    while (i < line.size() && !is_blank_char(line[i])) ++i;
    if (i > begin) fn(line.substr(begin, i - begin));
  }
}

class ReferencePulseStimulus final : public Stimulus {
 public:
  ReferencePulseStimulus(double amplitude, std::int64_t start, std::int64_t stop)
      : amplitude_(amplitude), start_(start), stop_(stop) {}
  double uniform_current(std::int64_t step) const override {
    return step >= start_ && step < stop_ ? amplitude_ : 0.0;
  }

 private:
  double amplitude_;
  std::int64_t start_, stop_;
};

class ConstantStimulus final : public Stimulus {
 public:
  explicit ConstantStimulus(double value) : value_(value) {}
  double uniform_current(std::int64_t) const override { return value_; }

 private:
  double value_;
};

class ScheduleStimulus final : public Stimulus {
 public:
  explicit ScheduleStimulus(std::vector<double> values) : values_(std::move(values)) {}
  double uniform_current(std::int64_t step) const override {
    return step >= 0 && step < static_cast<std::int64_t>(values_.size()) ? values_[static_cast<std::size_t>(step)]
                                                                          : 0.0;
  }

 private:
  std::vector<double> values_;
};

// One value per line; blank lines are allowed only at the end of the file.
std::vector<double> read_schedule_file(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::ifstream in(file);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open stimulus schedule file", name));
  std::vector<double> values;
  std::string line;
  std::int64_t line_no = 0, first_blank_line = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::vector<std::string_view> tokens;
    for_each_token(line, [&](std::string_view t) { tokens.push_back(t); });
    if (tokens.empty()) {
      if (first_blank_line == 0) first_blank_line = line_no;
      continue;
    }
    if (first_blank_line != 0) {
      throw std::runtime_error(fmt::format("{}:{}: blank line in the schedule (line n+1 is step n)", name,
                                           first_blank_line));
    }
    if (tokens.size() != 1) {
      throw std::runtime_error(
          fmt::format("{}:{}: line {} has {} values, expected 1 (one per step)", name, line_no, line_no,
                      tokens.size()));
    }
    double value = 0.0;
    if (!parse_finite(tokens[0], value)) {
      throw std::runtime_error(fmt::format("{}:{}: {} is not a finite number", name, line_no, text::quoted_token(tokens[0])));
    }
    values.push_back(value);
  }
  if (in.bad()) throw std::runtime_error(fmt::format("{}:{}: read error", name, line_no + 1));
  if (values.empty()) throw std::runtime_error(fmt::format("{}: empty stimulus schedule file", name));
  return values;
}

// Line n+1 of the file = currents of update n, one value per cell. Only the current line is held in memory.
class CellFileStimulus final : public Stimulus {
 public:
  CellFileStimulus(const std::filesystem::path& file, std::int64_t cells, std::int64_t steps)
      : name_(file.string()), in_(file), cells_(cells), steps_(steps) {
    if (!in_) throw std::runtime_error(fmt::format("{}: cannot open per-cell stimulus file", name_));
    values_.reserve(static_cast<std::size_t>(cells_));
    if (steps_ > 0) read_line_for(0);  // checks the first line's length up front
  }

  double uniform_current(std::int64_t) const override { return 0.0; }
  bool has_per_cell() const override { return true; }

  const std::vector<double>* per_cell_current(std::int64_t step) override {
    if (step < 0 || step >= steps_) {
      throw std::out_of_range(fmt::format("{}: step {} outside the run's {} steps", name_, step, steps_));
    }
    if (step < current_step_) {
      throw std::logic_error(fmt::format("{}: per-cell stimulus asked for step {} after step {}; steps must be asked "
                                         "in increasing order (the file is streamed)",
                                         name_, step, current_step_));
    }
    while (current_step_ < step) read_line_for(current_step_ + 1);
    return &values_;
  }

 private:
  void read_line_for(std::int64_t step) {
    const std::int64_t line_no = step + 1;
    if (!std::getline(in_, line_)) {
      if (in_.bad()) throw std::runtime_error(fmt::format("{}:{}: read error", name_, line_no));
      throw std::runtime_error(fmt::format("{}:{}: file ends after {} lines, but the run has {} steps (one line per "
                                           "step)",
                                           name_, line_no, step, steps_));
    }
    values_.clear();
    std::int64_t count = 0;
    for_each_token(line_, [&](std::string_view token) {
      ++count;
      if (count > cells_) return;  // counted for the message below
      double value = 0.0;
      if (!parse_finite(token, value)) {
        throw std::runtime_error(
            fmt::format("{}:{}: value {}: {} is not a finite number", name_, line_no, count, text::quoted_token(token)));
      }
      values_.push_back(value);
    });
    if (count != cells_) {
      throw std::runtime_error(fmt::format("{}:{}: line {} has {} values, expected {} (one per cell)", name_, line_no,
                                           line_no, count, cells_));
    }
    current_step_ = step;
  }

  std::string name_;
  std::ifstream in_;
  std::int64_t cells_;
  std::int64_t steps_;
  std::int64_t current_step_ = -1;  // the step whose currents are in values_
  std::string line_;
  std::vector<double> values_;
};

// Every line a run will read, each checked as the run would check it (count of values, finite numbers), streamed
// as the run streams it: a bad line anywhere in a cell file is found before the run starts, not part-way through it.
void check_every_line(const std::filesystem::path& file, std::int64_t cells, std::int64_t steps) {
  CellFileStimulus stream(file, cells, steps);
  for (std::int64_t step = 1; step < steps; ++step) stream.per_cell_current(step);
}

}  // namespace

StimulusConfig checked_stimulus(const StimulusConfig& cfg, std::int64_t cells, std::int64_t steps) {
  StimulusConfig out = cfg;
  if (out.kind == "schedule" && out.schedule.empty() && !out.file.empty()) {
    out.schedule = read_schedule_file(out.file);
    out.file.clear();
  }
  make_stimulus(out, cells, steps);  // the checks of every kind; a cell file's first line
  if (out.kind == "cell_file") check_every_line(out.file, cells, steps);
  return out;
}

std::unique_ptr<Stimulus> make_stimulus(const StimulusConfig& cfg, std::int64_t cells, std::int64_t steps) {
  if (cells < 0 || steps < 0) {
    throw std::invalid_argument(fmt::format("make_stimulus: negative cells ({}) or steps ({})", cells, steps));
  }
  if (cfg.kind == "reference_pulse") {
    if (!std::isfinite(cfg.amplitude)) throw ConfigError("stimulus amplitude must be finite");
    if (cfg.start < 0 || cfg.stop < cfg.start) {
      throw ConfigError(
          fmt::format("stimulus pulse needs 0 <= start <= stop (got start = {}, stop = {})", cfg.start, cfg.stop));
    }
    return std::make_unique<ReferencePulseStimulus>(cfg.amplitude, cfg.start, cfg.stop);
  }
  if (cfg.kind == "constant") {
    if (!std::isfinite(cfg.value)) throw ConfigError("stimulus value must be finite");
    return std::make_unique<ConstantStimulus>(cfg.value);
  }
  if (cfg.kind == "schedule") {
    if (!cfg.schedule.empty()) {
      for (std::size_t n = 0; n < cfg.schedule.size(); ++n) {
        if (!std::isfinite(cfg.schedule[n])) {
          throw ConfigError(fmt::format("stimulus schedule value {} (step {}) is not finite", cfg.schedule[n], n));
        }
      }
      return std::make_unique<ScheduleStimulus>(cfg.schedule);
    }
    if (cfg.file.empty()) throw ConfigError("stimulus kind \"schedule\" needs schedule values or a file");
    return std::make_unique<ScheduleStimulus>(read_schedule_file(cfg.file));
  }
  if (cfg.kind == "cell_file") {
    if (cfg.file.empty()) throw ConfigError("stimulus kind \"cell_file\" needs a file");
    return std::make_unique<CellFileStimulus>(cfg.file, cells, steps);
  }
  throw ConfigError(fmt::format("unknown stimulus kind \"{}\" (allowed: reference_pulse, constant, schedule, "
                                "cell_file)",
                                cfg.kind));
}

}  // namespace kbrain
