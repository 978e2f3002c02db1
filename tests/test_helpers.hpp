#pragma once
// Test helpers: a fresh folder under the system temp directory (removed with its contents on destruction),
// whole-file reading, line counts, and checks on error messages.
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

namespace kbrain::test {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag = "tmp") {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() / fmt::format("kbrain_test_{}_{:08x}{:08x}", tag, rd(), rd());
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path write(const std::string& name, const std::string& content) const {
    const auto file = path / name;
    std::ofstream(file, std::ios::binary) << content;
    return file;
  }
};

// The number of lines of a text file (0 if it cannot be read).
inline std::size_t count_lines(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::size_t n = 0;
  std::string line;
  while (std::getline(in, line)) ++n;
  return n;
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The message of the std::runtime_error `f` throws ("" if it throws none; other exception types propagate).
template <class F>
std::string runtime_error_of(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// The folder a run into `target` that did not finish was kept in: the one <target>.partial-* beside it
// (core/recorders/output_folder.hpp). Throws if there is not exactly one.
inline std::filesystem::path kept_folder(const std::filesystem::path& target) {
  std::vector<std::filesystem::path> found;
  const std::string prefix = target.filename().string() + ".partial-";
  for (const auto& entry : std::filesystem::directory_iterator(target.parent_path()))
    if (entry.path().filename().string().rfind(prefix, 0) == 0) found.push_back(entry.path());
  if (found.size() != 1)
    throw std::runtime_error(fmt::format("{} folders {}* beside {}", found.size(), prefix, target.string()));
  return found.front();
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace kbrain::test
