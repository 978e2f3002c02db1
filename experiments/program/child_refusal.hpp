#pragma once
// A child run of `kbrain compare --ranks` that was refused for memory (exit 2, its error line naming the memory it
// lacks: models/runtime/memory_statement.hpp) is a row that was not run, not a failed run: the comparison goes on.
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kbrain {

// The refusal in `log` of a child that ended with `status` (std::system's), or "" when it was not refused for memory.
inline std::string memory_refusal_of_child(int status, const std::filesystem::path& log) {
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 2) return {};
  std::ifstream in(log);
  std::string line, refusal;
  while (std::getline(in, line))
    if (line.rfind("kbrain: error", 0) == 0 && line.find(" memory") != std::string::npos) refusal = line;
  const auto colon = refusal.find("): ");  // under mpirun: "kbrain: error (rank R): ..."
  if (colon != std::string::npos) return refusal.substr(colon + 3);
  return refusal.rfind("kbrain: error: ", 0) == 0 ? refusal.substr(15) : refusal;
}

}  // namespace kbrain
