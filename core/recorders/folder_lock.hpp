#pragma once
// An exclusive lock on a lock file (flock), held while a run writes an output folder, so that a second kbrain run
// into the same folder is refused instead of mixing its files with the first's. The kernel drops the lock when the
// process ends however it ends, so a crashed run never leaves the folder locked; a lock file left behind by one is
// simply locked again.
#include <filesystem>
#include <stdexcept>

namespace kbrain {

class FolderLock {
 public:
  // Creates `file` if missing and locks it without waiting. Throws FolderBusy when another process holds it,
  // std::runtime_error (naming the file) when it cannot be created.
  explicit FolderLock(std::filesystem::path file);
  ~FolderLock();  // removes the lock file, then releases the lock
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  int fd_ = -1;
};

struct FolderBusy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace kbrain
