#include "experiments/program/reproduce/published_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <limits>

#include "core/config/experiment_config.hpp"
#include "core/text/tokens.hpp"

namespace kbrain {

namespace {

// Comma-separated fields, each trimmed of the blanks the number readers skip.
std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',') out.emplace_back();
    else out.back() += c;
  }
  for (auto& f : out) {
    std::size_t first = 0, last = f.size();
    while (first < last && text::is_blank_char(f[first])) ++first;
    while (last > first && text::is_blank_char(f[last - 1])) --last;
    f = f.substr(first, last - first);
  }
  return out;
}

}  // namespace

std::size_t PublishedTable::column(const std::string& name) const {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) throw ConfigError(fmt::format("{}: no column \"{}\" in the header", file.string(), name));
  return std::size_t(it - header.begin());
}

bool PublishedTable::has_column(const std::string& name) const {
  return std::find(header.begin(), header.end(), name) != header.end();
}

PublishedTable load_published_table(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw ConfigError(fmt::format("{}: cannot read the published table", file.string()));
  PublishedTable t;
  t.file = file;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto at = [&](const std::string& text) { return ConfigError(fmt::format("{}:{}: {}", file.string(), number, text)); };
    if (line.empty() || line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line[0] == '#') {
      t.provenance.push_back(line.size() > 1 && line[1] == ' ' ? line.substr(2) : line.substr(1));
      continue;
    }
    const std::vector<std::string> fields = split_fields(line);
    if (t.header.empty()) {
      t.header = fields;
      for (std::size_t i = 0; i < fields.size(); ++i)
        if (fields[i].empty() || std::count(fields.begin(), fields.end(), fields[i]) > 1)
          throw at(fmt::format("header field {} is empty or repeated", i + 1));
      continue;
    }
    if (fields.size() != t.header.size())
      throw at(fmt::format("{} fields where the header has {}", fields.size(), t.header.size()));
    std::vector<double> row;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].empty()) {
        row.push_back(std::numeric_limits<double>::quiet_NaN());
        continue;
      }
      double v = 0;
      if (!text::parse_finite(fields[i], v))
        throw at(fmt::format("column \"{}\" holds {}, not a finite number", t.header[i], text::quoted_token(fields[i])));
      row.push_back(v);
    }
    t.rows.push_back(std::move(row));
  }
  if (t.header.empty()) throw ConfigError(fmt::format("{}: no header line", file.string()));
  // A table without a row would print as an empty table beside kbrain's numbers: a published table has numbers.
  if (t.rows.empty()) throw ConfigError(fmt::format("{}: a header but no row of numbers", file.string()));
  if (t.provenance.empty())
    throw ConfigError(fmt::format("{}: no '#' line saying which table of which study the numbers come from", file.string()));
  return t;
}

}  // namespace kbrain
