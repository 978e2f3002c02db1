// `kbrain reproduce <study>`: runs a study's experiments (its recipe, experiments/studies/<study>.toml) as `kbrain
// compare` sweeps on the backends present, then writes one report that puts each published table beside kbrain's
// numbers (study_report.hpp). Every experiment and table is checked before the first byte of output; the folder is
// published whole or kept under its working name (output_folder_command.hpp).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "backends/registry.hpp"
#include "core/detected.hpp"
#include "core/text/atomic_file.hpp"
#include "experiments/program/build_info.hpp"
#include "experiments/program/commands.hpp"
#include "experiments/program/compare_sweep.hpp"
#include "experiments/program/mpi_env.hpp"
#include "experiments/program/output_folder_command.hpp"
#include "experiments/program/reproduce/published_table.hpp"
#include "experiments/program/reproduce/study_report.hpp"
#include "models/registry.hpp"

namespace kbrain {

namespace fs = std::filesystem;

namespace {

// What one run needs: the union of its columns' backends (present here) and precisions.
struct PlannedRun {
  StudyRun run;
  std::vector<std::string> backends, precisions;
};

void add_unique(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool gpu_present(const std::vector<std::string>& backends) {
  return std::find(backends.begin(), backends.end(), "cuda") != backends.end();
}

std::vector<PlannedRun> plan_runs(const StudyRecipe& recipe, const std::vector<std::string>& present, bool full) {
  std::vector<PlannedRun> runs;
  for (const auto& t : recipe.tables) {
    const StudyScale& s = t.scale(full);
    const std::vector<double> densities = s.densities.empty() ? std::vector<double>{0} : s.densities;
    if (t.measure == "largest_cells") continue;  // stated by the model's planner, not run (largest_cells_of)
    for (const double d : densities)
      for (const auto& c : t.columns) {
        if (std::find(present.begin(), present.end(), c.backend) == present.end()) continue;
        auto it = std::find_if(runs.begin(), runs.end(), [&](const PlannedRun& p) {
          return p.run.experiment == c.experiment && p.run.density == d;
        });
        if (it != runs.end() && (it->run.sizes != s.sizes || it->run.steps != s.steps || it->run.duration_ms != s.duration_ms))
          throw ConfigError(fmt::format("{}: {} runs {} at two scales (different sizes or steps in two tables); give "
                                        "the tables one scale or the runs two experiment files",
                                        recipe.source.string(), t.id, c.experiment.filename().string()));
        if (it == runs.end()) {
          PlannedRun p;
          p.run.experiment = c.experiment;
          p.run.density = d;
          p.run.sizes = s.sizes;
          p.run.steps = s.steps;
          p.run.duration_ms = s.duration_ms;
          runs.push_back(p);
          it = runs.end() - 1;
        }
        add_unique(it->backends, c.backend);
        add_unique(it->precisions, c.precision);
        // the speedups need their baseline in the same sweep
        if (t.measure == "speedup_vs_serial") add_unique(it->backends, "serial");
        if (t.measure == "speedup_vs_openmp") add_unique(it->backends, "openmp");
      }
  }
  std::map<std::string, int> used;
  for (auto& p : runs) {
    std::string name = p.run.experiment.stem().string();
    if (p.run.density > 0) name += fmt::format("_d{}", p.run.density);
    if (used[name]++ > 0) name += fmt::format("_{}", used[name]);
    p.run.folder = "runs/" + name;
    std::sort(p.backends.begin(), p.backends.end(), [](const std::string& a, const std::string& b) {
      const auto rank = [](const std::string& x) { return x == "serial" ? 0 : x == "openmp" ? 1 : 2; };
      return rank(a) < rank(b);
    });
  }
  return runs;
}

template <class M>
using largest_cells_t =
    decltype(M::largest_cells(std::declval<const typename M::Plan&>(), std::string(), Precision::Float));

// The largest network the model's memory planner fits on each present backend of a "largest_cells" table, at the
// experiment's own network kind; nothing is allocated.
std::vector<StudyFigure> largest_cells_of(const StudyRecipe& recipe, const StudyTable& t,
                                          const std::vector<std::string>& present) {
  std::vector<StudyFigure> figures;
  for (const auto& c : t.columns) {
    if (std::find(present.begin(), present.end(), c.backend) == present.end()) continue;
    const ExperimentConfig cfg = load_model_experiment(c.experiment);
    double cells = 0;
    with_model(cfg.model, [&](auto tag) {
      using M = typename decltype(tag)::type;
      if constexpr (is_detected_v<largest_cells_t, M>) {
        const typename M::Plan plan = M::make_plan(cfg, PlanRequest{});
        cells = double(M::largest_cells(plan, c.backend, parse_precision(c.precision)));
      } else {
        throw ConfigError(fmt::format("{}: {}: measure \"largest_cells\" needs a model whose planner states its "
                                      "largest network; model \"{}\" ({}) does not",
                                      recipe.source.string(), t.id, cfg.model, c.experiment.filename().string()));
      }
    });
    figures.push_back({t.id, c.name, cells});
  }
  return figures;
}

CompareOptions compare_options(const PlannedRun& p, std::int64_t max_slow_cell_steps) {
  CompareOptions o;
  o.max_slow_cell_steps = max_slow_cell_steps;
  o.experiment = p.run.experiment.string();
  o.backends = p.backends;
  o.precisions = p.precisions;
  o.sizes = p.run.sizes;
  if (p.run.density > 0) o.densities = {p.run.density};
  o.steps = p.run.steps;
  return o;
}

}  // namespace

int cmd_reproduce(const ReproduceOptions& o) {
  if (mpi_world_size() > 1) throw ConfigError("kbrain reproduce does not run under mpirun");
  const StudyRecipe recipe = load_study_recipe(find_study_recipe(o.study));
  std::vector<std::string> present = backend_names();
  if (!o.backends.empty()) {
    for (const auto& b : o.backends)
      if (!has_backend(b)) throw ConfigError(fmt::format("--backends: '{}' is not compiled into this kbrain", b));
    present = o.backends;
  }
  if (!o.scale.empty() && o.scale != "small" && o.scale != "full")
    throw ConfigError(fmt::format("--scale: must be small or full (got \"{}\")", o.scale));
  const bool full = o.scale.empty() ? gpu_present(present) : o.scale == "full";

  // Everything is read and checked before any output exists.
  for (const auto& t : recipe.tables) {
    const PublishedTable p = load_published_table(t.published);
    for (const std::string& key : {t.size_key, t.density_key})
      if (!key.empty()) (void)p.column(key);
    if (!t.printed_ratios.empty()) {
      const PublishedTable printed = load_published_table(t.printed_ratios);
      (void)printed.column(t.size_key);
    }
  }
  std::vector<PlannedRun> runs = plan_runs(recipe, present, full);
  std::vector<StudyFigure> figures;
  for (const auto& t : recipe.tables)
    if (t.measure == "largest_cells")
      for (auto& f : largest_cells_of(recipe, t, present)) figures.push_back(std::move(f));
  if (runs.empty() && figures.empty())
    throw ConfigError(fmt::format("{}: none of its columns runs on the backends present ({})", recipe.source.string(),
                                  join_names(present)));
  std::vector<ExperimentConfig> configs;
  configs.reserve(runs.size());
  for (auto& p : runs) {
    configs.push_back(load_model_experiment(p.run.experiment));
    if (o.steps > 0) p.run.steps = o.steps;
    else if (p.run.duration_ms > 0) p.run.steps = std::max<std::int64_t>(1, std::llround(p.run.duration_ms / configs.back().dt));
    (void)make_compare_sweep(compare_options(p, o.max_slow_cell_steps), configs.back());
  }

  const fs::path target = o.out_dir.empty() ? fs::path("out") / "reproduce" / (recipe.study + (full ? "_full" : "_small"))
                                            : fs::path(o.out_dir);
  StudyEvidence evidence;
  evidence.full_scale = full;
  evidence.steps_override = o.steps;
  evidence.backends_present = present;
  evidence.figures = figures;
  evidence.date = today_iso();
  evidence.commit = git_commit();
  evidence.command = command_line();
  evidence.kokkos = kokkos_description();
  fmt::print(stderr, "[reproduce] {}: {} runs at the {} scale on {}\n", recipe.study, runs.size(), full ? "full" : "small",
             join_names(present));
  auto write = [&](const fs::path& work) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      StudyRun run = runs[i].run;
      fmt::print(stderr, "[reproduce] {} ({}/{})\n", run.folder, i + 1, runs.size());
      CompareSweep sweep = make_compare_sweep(compare_options(runs[i], o.max_slow_cell_steps), configs[i]);
      sweep.out_dir = work / run.folder;
      sweep.target = target / run.folder;
      sweep.result = &run.table;
      fs::create_directories(sweep.out_dir);
      if (const int code = run_compare_sweep(configs[i], sweep); code != 0) return code;
      evidence.runs.push_back(std::move(run));
    }
    text::write_file_atomically(work / "reproduce.json", study_report_json(recipe, evidence));
    text::write_file_atomically(work / "report.md", study_report_markdown(recipe, evidence));
    return 0;
  };
  return write_in_output_folder(target, write, [&](const fs::path& dir) {
    fmt::print("report: {}\n", (dir / "report.md").string());
    if (o.no_plots) return;
    draw_pictures(dir);
    for (const auto& run : evidence.runs) draw_pictures(dir / run.folder);
  });
}

}  // namespace kbrain
