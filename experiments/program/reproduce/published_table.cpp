#include "experiments/program/reproduce/published_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "core/config/experiment_config.hpp"

namespace kbrain {

namespace {

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',') out.emplace_back();
    else out.back() += c;
  }
  for (auto& f : out) {
    const auto first = f.find_first_not_of(" \t\r");
    const auto last = f.find_last_not_of(" \t\r");
    f = first == std::string::npos ? std::string() : f.substr(first, last - first + 1);
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
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(fields[i].c_str(), &end);
      if (end != fields[i].c_str() + fields[i].size() || errno != 0 || !std::isfinite(v))
        throw at(fmt::format("column \"{}\" holds \"{}\", not a finite number", t.header[i], fields[i].substr(0, 40)));
      row.push_back(v);
    }
    t.rows.push_back(std::move(row));
  }
  if (t.header.empty()) throw ConfigError(fmt::format("{}: no header line", file.string()));
  if (t.provenance.empty())
    throw ConfigError(fmt::format("{}: no '#' line saying which table of which study the numbers come from", file.string()));
  return t;
}

}  // namespace kbrain
