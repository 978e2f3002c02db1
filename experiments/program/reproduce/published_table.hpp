#pragma once
// A table of a study's own numbers, kept in the repository as data (experiments/studies/<study>/*.csv): '#' lines
// saying where it comes from (the study's table, the seed file and line), a header, then one row per published line.
// Every cell is a number or empty (not published). Errors name the file and line (ConfigError, exit 2).
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace kbrain {

struct PublishedTable {
  std::filesystem::path file;
  std::vector<std::string> provenance;  // the '#' lines, without the '#'
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;  // NaN: not published

  // The column's index; ConfigError naming the file when there is none.
  std::size_t column(const std::string& name) const;
  bool has_column(const std::string& name) const;
};

PublishedTable load_published_table(const std::filesystem::path& file);

}  // namespace kbrain
