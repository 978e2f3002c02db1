// write_manifest: run.json as one flat JSON object, written to <file>.tmp and renamed over <file>.
#include "core/recorders/run_manifest.hpp"

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

  std::error_code ec;
  if (file.has_parent_path()) {
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec)
      throw std::runtime_error(
          fmt::format("cannot create directory {}: {}", file.parent_path().string(), ec.message()));
  }
  std::filesystem::path tmp = file;
  tmp += ".tmp";
  {
    std::ofstream os(tmp, std::ios::out | std::ios::trunc);
    if (!os) throw std::runtime_error(fmt::format("cannot create {}", tmp.string()));
    os.write(text.data(), static_cast<std::streamsize>(text.size()));
    os.close();
    if (!os) throw std::runtime_error(fmt::format("writing {} failed", tmp.string()));
  }
  std::filesystem::rename(tmp, file, ec);  // atomic replace on POSIX: readers see the old or the new file
  if (ec) {
    const std::string reason = ec.message();
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", tmp.string(), file.string(), reason));
  }
}

}  // namespace kbrain
