#pragma once
// Writes a comparison report (IO or spiking) as <out>/compare.{md,csv,json} and prints the Markdown table.
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

namespace kbrain {

template <class Report>
void publish_comparison(const std::filesystem::path& out_dir, Report& report) {
  compute_speedups(report);
  std::filesystem::create_directories(out_dir);
  const std::string md = to_markdown(report);
  {
    std::ofstream f(out_dir / "compare.md");
    f << md;
  }
  write_csv(out_dir / "compare.csv", report);
  write_json(out_dir / "compare.json", report);
  fmt::print("{}\n(also written to {}/compare.{{md,csv,json}})\n", md, out_dir.string());
}

}  // namespace kbrain
