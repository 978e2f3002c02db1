#pragma once
// Where a command writes its output folder, so that a run that fails or is interrupted never destroys or mixes with
// an earlier result (docs/output-formats.md, "Where a run writes"):
//   <target>.lock              locked while the command writes: a second command into <target> is refused (exit 2)
//   <target>.partial-<pid>     the folder it writes into, created empty; a failed or interrupted run leaves it there
//   <target>                   the finished result, moved there by publish(); an earlier result there is moved to
//                              <target>.replaced-<pid> first and removed only once the new one is in place
// The target may be missing, an empty folder or an earlier kbrain output folder (it holds run.json, compare.json,
// ...); anything else is refused before anything is written, since publishing replaces the folder as a whole.
#include <filesystem>
#include <string>

#include "core/recorders/folder_lock.hpp"

namespace kbrain {

class OutputFolder {
 public:
  // Checks and locks the target and creates the working folder. Throws ConfigError (exit 2) for a target that is
  // busy or not an output folder, std::runtime_error for a folder that cannot be created.
  explicit OutputFolder(const std::filesystem::path& target);
  const std::filesystem::path& work() const { return work_; }      // where the command writes
  const std::filesystem::path& target() const { return target_; }  // where the result goes
  bool published() const { return work_ == target_; }
  // Moves the working folder to the target (the earlier result there is replaced only now).
  void publish();
  // For messages about a run that did not finish: where its files are and what became of the target.
  std::string kept_note() const;

 private:
  std::filesystem::path target_, work_;
  bool had_result_ = false;  // the target held an earlier result when the command started
  FolderLock lock_;
};

// Whether `dir` is something publish() may replace: missing, an empty folder or a kbrain output folder.
bool replaceable_output(const std::filesystem::path& dir);

}  // namespace kbrain
