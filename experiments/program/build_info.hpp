#pragma once
#include <string>

namespace kbrain {

std::string git_commit();          // KBRAIN_COMMIT env, else `git rev-parse` in the source tree, else build-time value
std::string today_iso();           // YYYY-MM-DD (local time)
std::string kokkos_description();  // "Kokkos 3.4.1 (bundled 3.4.01 (patched))"
std::string command_line();        // the command as invoked (set by main)
void set_command_line(int argc, char** argv);

}  // namespace kbrain
