// write_manifest: run.json as one flat JSON object, written to <file>.tmp and renamed over <file>.
#include "core/recorders/run_manifest.hpp"

#include "core/text/atomic_file.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>
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

}  // namespace kbrain
