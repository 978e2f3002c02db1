// The stop flag and its handlers (core/process/stop_signals.hpp).
#include "core/process/stop_signals.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <iterator>

#include <fmt/format.h>

namespace kbrain {
namespace {

// Lock-free, so that the handler may store it (std::atomic<int> is on every platform kbrain builds for).
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the stop flag must be lock-free to be set in a handler");

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

void on_stop_signal(int signal) {
  int none = 0;
  if (g_stop_signal.compare_exchange_strong(none, signal)) return;
  // Asked again while stopping: the user wants out now. Default action, then the signal again.
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void catch_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // file writes and reads in progress carry on
  for (const int s : kStopSignals) {
    // An ignored signal stays ignored: nohup ignores SIGHUP, and a shell without job control starts background
    // commands with SIGINT ignored, so that a closed terminal or Ctrl-C meant for another program leaves them be.
    struct sigaction current {};
    if (sigaction(s, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
    sigaction(s, &action, nullptr);
  }
}

int stop_signal() { return g_stop_signal.load(std::memory_order_relaxed); }

void clear_stop_signal() { g_stop_signal.store(0); }

int child_stop_signal(int system_status) {
  if (const int own = stop_signal()) return own;
  auto is_stop = [](int s) {
    return std::find(std::begin(kStopSignals), std::end(kStopSignals), s) != std::end(kStopSignals);
  };
  if (system_status == -1) return 0;
  if (WIFSIGNALED(system_status) && is_stop(WTERMSIG(system_status))) return WTERMSIG(system_status);
  if (WIFEXITED(system_status) && is_stop(WEXITSTATUS(system_status) - 128)) return WEXITSTATUS(system_status) - 128;
  return 0;
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return fmt::format("signal {}", signal);
  }
}

}  // namespace kbrain
