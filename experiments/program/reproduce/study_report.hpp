#pragma once
// The report of `kbrain reproduce`: for every table of a study's recipe, the study's numbers as published, kbrain's
// measured numbers in the same columns, the two side by side where kbrain ran the published size (study / kbrain),
// and the study's ratios (speedups) computed from the study's numbers and from kbrain's. Footnotes say where kbrain's
// sizes or steps differ from the study's and which backends this build lacks. Host-only; Markdown.
#include <filesystem>
#include <string>
#include <vector>

#include "core/report/comparison_table.hpp"
#include "experiments/program/reproduce/study_recipe.hpp"

namespace kbrain {

// One `kbrain compare` of the reproduction: an experiment at one density (0: the experiment's own).
struct StudyRun {
  std::filesystem::path experiment;
  double density = 0;
  std::int64_t steps = 0;             // the scale's (0: the experiment's)
  double duration_ms = 0;             // the scale's (0: steps say)
  std::vector<std::int64_t> sizes;    // the scale's
  std::string folder;                 // relative to the report: runs/<name>
  ComparisonTable table;
};

// A number kbrain states without a run (measure "largest_cells"): per table and column.
struct StudyFigure {
  std::string table, column;
  double value = 0;
};

struct StudyEvidence {
  bool full_scale = false;
  std::int64_t steps_override = 0;  // --steps: every run's steps in place of the scale's (0: none)
  std::vector<std::string> backends_present;  // compiled in (and usable) on this machine
  std::vector<StudyRun> runs;
  std::vector<StudyFigure> figures;
  std::string date, commit, command, kokkos;
};

// The run that measures `column` at `density` (nullptr when none).
const StudyRun* find_study_run(const StudyEvidence& e, const StudyColumn& column, double density);

std::string study_report_markdown(const StudyRecipe& recipe, const StudyEvidence& evidence);
// The same numbers as data (reproduce.json), for the pictures (scripts/plots/plot_reproduce.py): per table the
// published header and rows, kbrain's columns and its rows (density, cells, one value per column, null when absent).
std::string study_report_json(const StudyRecipe& recipe, const StudyEvidence& evidence);

}  // namespace kbrain
