#pragma once
// How the commands that write an output folder end it (core/recorders/output_folder.hpp): a whole result is moved
// into place; a command that failed, was interrupted or is not whole keeps its folder under its working name, and its
// message says where.
#include <exception>
#include <filesystem>

#include <fmt/format.h>

#include "core/process/stop_signals.hpp"
#include "core/recorders/output_folder.hpp"
#include "models/runtime/run_interrupted.hpp"

namespace kbrain {

// A command whose exit code says that its result is not whole (some of its runs failed): kept, and said so.
inline int keep_unfinished(const OutputFolder& folder, int code) {
  fmt::print(stderr, "kbrain: the result is not whole; {}\n", folder.kept_note());
  return code;
}

// Between the runs a comparison starts as child processes (std::system's status): a stop signal, its own or one that
// stopped the child, stops the comparison with its folder kept.
inline void stop_after_child(int system_status, const OutputFolder& folder) {
  if (const int signal = child_stop_signal(system_status))
    throw RunInterrupted(fmt::format("interrupted by {}; {}", signal_name(signal), folder.kept_note()), signal, 0);
}

// Runs write(working folder) -> exit code inside an OutputFolder for `target`; published (then after() runs, under
// the lock) when it returns 0.
template <class Write, class After>
int write_in_output_folder(const std::filesystem::path& target, Write&& write, After&& after) {
  OutputFolder folder(target);
  int code = 0;
  try {
    code = write(folder.work());
  } catch (const RunInterrupted& e) {
    throw RunInterrupted(fmt::format("{}; {}", e.what(), folder.kept_note()), e.signal, e.step);
  } catch (const std::exception&) {
    fmt::print(stderr, "kbrain: the command did not finish; {}\n", folder.kept_note());
    throw;
  }
  if (code != 0) return keep_unfinished(folder, code);
  folder.publish();
  after(folder.target());
  return 0;
}

}  // namespace kbrain
