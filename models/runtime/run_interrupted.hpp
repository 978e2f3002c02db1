#pragma once
// The error of a run stopped by SIGINT, SIGTERM or SIGHUP (core/process/stop_signals.hpp): the runner finished the
// step under way, wrote what was recorded and stopped; the run is never complete and kbrain exits with 128 + signal.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kbrain {

struct RunInterrupted : std::runtime_error {
  RunInterrupted(const std::string& what, int signal, std::int64_t step)
      : std::runtime_error(what), signal(signal), step(step) {}
  int exit_code() const { return 128 + signal; }  // the shell's convention for a process ended by a signal
  int signal = 0;
  std::int64_t step = 0;  // the steps done when the run stopped
};

}  // namespace kbrain
