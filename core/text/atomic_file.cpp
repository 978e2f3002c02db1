#include "core/text/atomic_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>
#include <system_error>

namespace kbrain::text {

void remove_planted_link(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(std::filesystem::symlink_status(file, ec))) return;
  std::filesystem::remove(file, ec);  // removes the link itself
  if (ec) throw std::runtime_error(fmt::format("{} is a symbolic link that cannot be removed: {}", file.string(),
                                               ec.message()));
}

void write_file_atomically(const std::filesystem::path& file, const std::string& text) {
  if (file.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec)
      throw std::runtime_error(
          fmt::format("cannot create directory {}: {}", file.parent_path().string(), ec.message()));
  }
  std::filesystem::path tmp = file;
  tmp += ".tmp";
  remove_planted_link(tmp);
  {
    std::ofstream os(tmp, std::ios::out | std::ios::trunc | std::ios::binary);
    if (!os) throw std::runtime_error(fmt::format("cannot create {}", tmp.string()));
    os.write(text.data(), static_cast<std::streamsize>(text.size()));
    os.close();
    if (!os) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw std::runtime_error(fmt::format("writing {} failed", tmp.string()));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    const std::string reason = ec.message();
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", tmp.string(), file.string(), reason));
  }
}

}  // namespace kbrain::text
