#pragma once
// Writes a comparison report (IO or spiking) as <out>/compare.{md,csv,json}, as it grows and when it is complete.
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

namespace kbrain {

// Writes the tables and returns the Markdown. complete: <out>/compare.{md,csv,json}, and any partial files are
// removed. Not complete: compare saves after every finished run, so a comparison cut short (a time limit, Ctrl-C)
// still leaves what it measured, in <out>/compare.partial.{md,csv,json} (the Markdown says so); an earlier run's
// complete files are removed, so that none of them passes for this run's.
template <class Report>
std::string save_comparison(const std::filesystem::path& out_dir, Report& report, bool complete) {
  compute_speedups(report);
  std::filesystem::create_directories(out_dir);
  const std::string name = complete ? "compare" : "compare.partial";
  for (const char* ext : {".md", ".csv", ".json"})
    std::filesystem::remove(out_dir / ((complete ? "compare.partial" : "compare") + std::string(ext)));
  std::string md = to_markdown(report);
  if (!complete)
    md = fmt::format("> **Partial:** {} rows so far; the comparison is still running or was interrupted.\n\n{}",
                     report.rows.size(), md);
  {
    std::ofstream f(out_dir / (name + ".md"));
    f << md;
  }
  write_csv(out_dir / (name + ".csv"), report);
  write_json(out_dir / (name + ".json"), report);
  return md;
}

// The final tables: saved as complete and printed.
template <class Report>
void publish_comparison(const std::filesystem::path& out_dir, Report& report) {
  const std::string md = save_comparison(out_dir, report, true);
  fmt::print("{}\n(also written to {}/compare.{{md,csv,json}})\n", md, out_dir.string());
}

}  // namespace kbrain
