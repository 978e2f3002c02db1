#pragma once
// Writes a comparison report (IO or spiking) as <out>/compare.{md,csv,json}, as it grows and when it is complete.
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

namespace kbrain {

// Writes <out>/compare.{md,csv,json} and returns the Markdown. complete = false marks the tables as partial: compare
// saves after every finished run, so a comparison cut short (a time limit, Ctrl-C) still leaves what it measured.
template <class Report>
std::string save_comparison(const std::filesystem::path& out_dir, Report& report, bool complete) {
  compute_speedups(report);
  std::filesystem::create_directories(out_dir);
  std::string md = to_markdown(report);
  if (!complete)
    md = fmt::format("> **Partial:** {} rows so far; the comparison is still running or was interrupted.\n\n{}",
                     report.rows.size(), md);
  {
    std::ofstream f(out_dir / "compare.md");
    f << md;
  }
  write_csv(out_dir / "compare.csv", report);
  write_json(out_dir / "compare.json", report);
  return md;
}

// The final tables: saved as complete and printed.
template <class Report>
void publish_comparison(const std::filesystem::path& out_dir, Report& report) {
  const std::string md = save_comparison(out_dir, report, true);
  fmt::print("{}\n(also written to {}/compare.{{md,csv,json}})\n", md, out_dir.string());
}

}  // namespace kbrain
