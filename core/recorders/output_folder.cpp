// OutputFolder: a sibling working folder, a lock next to the target and the move into place at the end.
#include "core/recorders/output_folder.hpp"

#include <unistd.h>

#include <system_error>

#include <fmt/format.h>

#include "core/config/experiment_config.hpp"

namespace kbrain {
namespace fs = std::filesystem;
namespace {

// A file that only kbrain's outputs hold: run.json (kbrain run), the compare tables (final or partial) and the
// tables of compare --ranks / --threads.
constexpr const char* kOutputMarkers[] = {"run.json", "compare.json", "compare.partial.json", "compare_ranks.json",
                                          "thread_scaling.csv"};

// The folder as named, without a trailing separator; ".", ".." or a trailing "/." become the absolute folder, so
// that the siblings are named after it.
fs::path folder_name(const fs::path& given) {
  if (given.empty()) throw ConfigError("the output folder (--out) is an empty path");
  fs::path p = given.has_filename() ? given : given.parent_path();
  if (p.filename() == "." || p.filename() == "..") {
    p = fs::absolute(p).lexically_normal();
    if (!p.has_filename()) p = p.parent_path();
  }
  if (!p.has_filename() || p == p.root_path())
    throw ConfigError(fmt::format("the output folder (--out) {} is a file system root; give a folder of its own",
                                  given.string()));
  return p;
}

fs::path sibling(const fs::path& target, const std::string& suffix) {
  fs::path p = target;
  p += suffix;
  return p;
}

// A name beside the target that is free now: <target><suffix>-<pid>, then -<pid>-2, ... (a process id is reused, and
// a folder kept from an earlier run may carry it).
fs::path free_sibling(const fs::path& target, const std::string& suffix) {
  const std::string base = fmt::format("{}-{}", suffix, ::getpid());
  for (int n = 1;; ++n) {
    const fs::path p = sibling(target, n == 1 ? base : fmt::format("{}-{}", base, n));
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(p, ec))) return p;
  }
}

bool holds_output(const fs::path& dir) {
  std::error_code ec;
  for (const char* marker : kOutputMarkers)
    if (fs::is_regular_file(fs::symlink_status(dir / marker, ec))) return true;
  return false;
}

}  // namespace

bool replaceable_output(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status s = fs::symlink_status(dir, ec);
  if (!fs::exists(s)) return true;
  if (!fs::is_directory(s)) return false;  // a file or a symbolic link is never replaced
  return fs::is_empty(dir, ec) || holds_output(dir);
}

OutputFolder::OutputFolder(const fs::path& target)
    : target_(folder_name(target)),
      lock_([this] {
        std::error_code ec;
        if (target_.has_parent_path()) fs::create_directories(target_.parent_path(), ec);
        // A folder that cannot be made or written is the user's choice of --out, bad input like any other.
        if (ec)
          throw ConfigError(fmt::format("cannot create the folder {} for the output folder (--out): {}",
                                        target_.parent_path().string(), ec.message()));
        try {
          return FolderLock(sibling(target_, ".lock"));
        } catch (const FolderBusy&) {
          throw ConfigError(fmt::format("another kbrain run is writing {} (it holds {}.lock); wait until it ends or "
                                        "choose another --out",
                                        target_.string(), target_.string()));
        } catch (const std::runtime_error& e) {
          throw ConfigError(fmt::format("the output folder (--out) {} cannot be used: {}", target_.string(), e.what()));
        }
      }()) {
  if (!replaceable_output(target_))
    throw ConfigError(fmt::format("the output folder {} is not a kbrain output folder (a file, a link, or a folder "
                                  "without run.json or compare.json); kbrain replaces its output folder as a whole, "
                                  "so choose another --out or remove it",
                                  target_.string()));
  std::error_code ec;
  had_result_ = fs::exists(fs::symlink_status(target_, ec)) && !fs::is_empty(target_, ec);
  for (;;) {
    work_ = free_sibling(target_, ".partial");
    if (fs::create_directory(work_, ec)) return;  // false: taken meanwhile, take the next name
    if (ec)
      throw ConfigError(fmt::format("cannot create the folder {} beside the output folder (--out): {}", work_.string(),
                                    ec.message()));
  }
}

void OutputFolder::publish() {
  if (published()) return;
  if (!replaceable_output(target_))
    throw std::runtime_error(fmt::format("{} was replaced by something other than a kbrain output folder while the "
                                         "run went on; the run's files are in {}",
                                         target_.string(), work_.string()));
  std::error_code ec;
  fs::path aside;
  if (fs::exists(fs::symlink_status(target_, ec))) {
    if (fs::is_empty(target_, ec)) {
      fs::remove(target_, ec);
    } else {
      aside = free_sibling(target_, ".replaced");
      fs::rename(target_, aside, ec);
    }
    if (ec)
      throw std::runtime_error(fmt::format("cannot move the earlier {} aside: {}; the run's files are in {}",
                                           target_.string(), ec.message(), work_.string()));
  }
  fs::rename(work_, target_, ec);
  if (ec) {
    const std::string reason = ec.message();
    std::error_code back;
    if (!aside.empty()) fs::rename(aside, target_, back);  // the earlier result stays where it was
    throw std::runtime_error(fmt::format("cannot move {} to {}: {}; the run's files are in {}", work_.string(),
                                         target_.string(), reason, work_.string()));
  }
  work_ = target_;
  if (!aside.empty()) {
    fs::remove_all(aside, ec);
    if (ec)
      fmt::print(stderr, "kbrain: note: the earlier result, moved to {}, could not be removed: {}\n", aside.string(),
                 ec.message());
  }
}

std::string OutputFolder::kept_note() const {
  if (published()) return fmt::format("its files are in {}", target_.string());
  return fmt::format("its files are in {}, marked incomplete{}", work_.string(),
                     had_result_ ? fmt::format("; the earlier result in {} is untouched", target_.string()) : "");
}

}  // namespace kbrain
