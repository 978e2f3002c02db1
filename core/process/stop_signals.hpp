#pragma once
// SIGINT, SIGTERM and SIGHUP ask a run to stop instead of killing it: the handler only records the signal (nothing
// else is safe inside a handler); the runner looks after every step, finishes that step, writes what it recorded,
// marks the run incomplete and the program exits with 128 + the signal. A second stop signal while the run is
// stopping ends the process at once, as it would without the handler.
#include <string>

namespace kbrain {

void catch_stop_signals();  // installs the handlers (again, if something replaced them); ignored signals stay ignored
int stop_signal();          // 0, or the first stop signal received
void clear_stop_signal();   // tests: forget a received signal
std::string signal_name(int signal);  // "SIGINT", "SIGTERM", "SIGHUP", else "signal N"
// After a child process that std::system ran (its status): the stop signal this process received, else the one that
// ended the child or that it exited with (128 + signal, as kbrain does), else 0. A comparison that starts runs stops
// with them.
int child_stop_signal(int system_status);

}  // namespace kbrain
