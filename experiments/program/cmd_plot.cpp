// Pictures of an output folder: `kbrain plot DIR`, and the end of `kbrain run` / `kbrain compare` (unless
// --no-plots). matplotlib draws them (scripts/plots/kbrain_plot.py, run by the Python that has Debian's modules);
// without it the run still completes and says once that pictures were skipped.
#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "core/config/experiment_config.hpp"
#include "experiments/program/commands.hpp"
#include "experiments/program/shell_quote.hpp"
#include "kbrain_build_config.hpp"

namespace kbrain {

namespace {

// Exit status of the plotting script: 0 drawn, 2 not an output folder, 77 matplotlib missing, other: failed.
int run_plot_script(const std::filesystem::path& dir, bool quiet) {
  const char* python = std::getenv("KBRAIN_PYTHON");
  const char* script = std::getenv("KBRAIN_PLOT_SCRIPT");
  const std::string cmd = fmt::format("{} {} {}{}", shell_quote(python ? python : KBRAIN_SYSTEM_PYTHON),
                                      shell_quote(script ? script : KBRAIN_SOURCE_DIR "/scripts/plots/kbrain_plot.py"),
                                      shell_quote(dir.string()), quiet ? " > /dev/null" : "");
  const int rc = std::system(cmd.c_str());
  return rc == -1 ? 1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
}

}  // namespace

void draw_pictures(const std::filesystem::path& dir) {
  const int rc = run_plot_script(dir, true);
  if (rc == 0 && std::filesystem::is_directory(dir / "plots")) fmt::print("  pictures in {}\n", (dir / "plots").string());
  else if (rc == 0) fmt::print("  no plots: nothing in this folder is plotted\n");
  else if (rc == 77) fmt::print("  pictures skipped: matplotlib is not importable (scripts/setup_deps.sh installs python3-matplotlib)\n");
  else fmt::print(stderr, "  pictures failed (exit {}); the results are complete; redraw with `kbrain plot {}`\n", rc, dir.string());
}

int cmd_plot(const std::string& dir) {
  namespace fs = std::filesystem;
  bool output = false;
  for (const char* f : {"run.json", "compare.json", "compare_ranks.csv", "reproduce.json"}) output = output || fs::exists(fs::path(dir) / f);
  if (!output)
    throw ConfigError(fmt::format("{}: not a kbrain output folder (no run.json, compare.json, compare_ranks.csv or reproduce.json)", dir));
  const int rc = run_plot_script(dir, false);
  if (rc == 77) {
    fmt::print(stderr, "matplotlib is not importable (scripts/setup_deps.sh installs python3-matplotlib)\n");
    return 1;
  }
  return rc;
}

}  // namespace kbrain
