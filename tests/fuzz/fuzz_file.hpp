#pragma once
// The fuzz input as a file, for readers that take a path: an in-memory file (memfd) reached through
// /proc/self/fd, rewritten for every input. No disk traffic, no temp-file cleanup, and each open() sees the whole
// input from its start.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace kbrain::fuzz {

class FuzzFile {
 public:
  FuzzFile() : fd_(memfd_create("kbrain-fuzz", 0)) {
    if (fd_ < 0) std::abort();  // no file to fuzz through: a broken set-up, not a finding
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  FuzzFile(const FuzzFile&) = delete;
  FuzzFile& operator=(const FuzzFile&) = delete;

  // Replaces the file's contents with the input; returns its path.
  const std::filesystem::path& write(const std::uint8_t* data, std::size_t size) {
    if (ftruncate(fd_, 0) != 0) std::abort();
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      if (n <= 0) std::abort();
      done += static_cast<std::size_t>(n);
    }
    return path_;
  }

 private:
  int fd_;
  std::filesystem::path path_;
};

// One file per fuzz process (libFuzzer runs the inputs one after another in one thread).
inline const std::filesystem::path& input_file(const std::uint8_t* data, std::size_t size) {
  static FuzzFile file;
  return file.write(data, size);
}

// A reader's configuration (GCaLConfig, StimulusConfig) of the given kind that names the input as its file.
template <class Config>
Config file_config(const char* kind, const std::uint8_t* data, std::size_t size) {
  Config cfg;
  cfg.kind = kind;
  cfg.file = input_file(data, size);
  return cfg;
}

}  // namespace kbrain::fuzz
