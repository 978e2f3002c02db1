// write_manifest: run.json as one flat JSON object, written to <file>.tmp and renamed over <file>.
#include "core/recorders/run_manifest.hpp"

#include "core/text/atomic_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "core/text/json.hpp"

namespace kbrain {
namespace {
using text::json_number;
using text::json_string;



}  // namespace

void write_manifest(const std::filesystem::path& file, const RunManifest& m) {
  for (const auto& entry : m.numbers) {
    if (m.fields.count(entry.first) != 0 || entry.first == "complete")
      throw std::invalid_argument(fmt::format("run manifest: key \"{}\" is used twice", entry.first));
  }
  if (m.fields.count("complete") != 0) throw std::invalid_argument("run manifest: key \"complete\" is reserved");

  fmt::memory_buffer text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "{{\n  \"complete\": {}", m.complete ? "true" : "false");
  for (const auto& [key, value] : m.fields) fmt::format_to(out, ",\n  {}: {}", json_string(key), json_string(value));
  for (const auto& [key, value] : m.numbers) fmt::format_to(out, ",\n  {}: {}", json_string(key), json_number(value));
  fmt::format_to(out, "\n}}\n");

  kbrain::text::write_file_atomically(file, std::string(text.data(), text.size()));
}

std::string describe_output_files(const std::filesystem::path& dir) {
  static const std::map<std::string, std::string> formats = {
      {".csv", "CSV"}, {".json", "JSON"}, {".kbs", "kbrain binary spikes"}, {".kbt", "kbrain binary trace"},
      {".h5", "HDF5"}, {".md", "Markdown"}, {".npy", "NumPy array"}, {".png", "PNG"}, {".svg", "SVG"}};
  // HDF5 files of different SONATA layouts share the extension: their names tell them apart.
  static const std::map<std::string, std::string> named = {{"spikes.h5", "SONATA spikes (HDF5)"},
                                                           {"voltage.h5", "SONATA report (HDF5)"}};
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.is_regular_file(ec)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  std::string out;
  for (const std::string& name : names) {
    const auto by_name = named.find(name);
    const auto format = formats.find(std::filesystem::path(name).extension().string());
    if (!out.empty()) out += "; ";
    out += name + ": " + (by_name != named.end()   ? by_name->second
                          : format != formats.end() ? format->second
                                                    : std::string("other"));
  }
  return out;
}

}  // namespace kbrain
