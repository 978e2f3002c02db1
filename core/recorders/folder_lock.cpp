// FolderLock: flock on a lock file that is removed when the lock is released.
// Removing a lock file is safe only with a check after locking: a process may open the file, then find it removed
// and locked no more by the time its flock succeeds. So a lock counts only if the path still names the locked file
// (same device and inode); otherwise the file is opened again.
#include "core/recorders/folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

namespace kbrain {
namespace {

bool same_file(int fd, const std::filesystem::path& file) {
  struct stat opened {}, named {};
  if (fstat(fd, &opened) != 0 || lstat(file.c_str(), &named) != 0) return false;
  return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

}  // namespace

FolderLock::FolderLock(std::filesystem::path file) : file_(std::move(file)) {
  for (;;) {
    // O_NOFOLLOW: a link planted at the lock's name is not followed (the open fails); O_CLOEXEC: the runs that
    // compare --ranks / --threads start must not inherit the lock.
    fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw std::runtime_error(fmt::format("cannot create the lock file {}: {}", file_.string(), std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(fd_);
      fd_ = -1;
      if (error == EWOULDBLOCK) throw FolderBusy(fmt::format("{} is locked by another process", file_.string()));
      throw std::runtime_error(fmt::format("cannot lock {}: {}", file_.string(), std::strerror(error)));
    }
    if (same_file(fd_, file_)) return;
    ::close(fd_);  // the holder before us removed it: lock the file that is there now
    fd_ = -1;
  }
}

FolderLock::~FolderLock() {
  if (fd_ < 0) return;
  std::error_code ignored;
  std::filesystem::remove(file_, ignored);  // while still locked: nobody can be holding the next one yet
  ::close(fd_);
}

}  // namespace kbrain
