#pragma once
// One argument for /bin/sh, single-quoted (commands that kbrain starts: mpiexec runs, the picture script).
#include <string>

namespace kbrain {

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace kbrain
