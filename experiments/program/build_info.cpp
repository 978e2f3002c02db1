#include "experiments/program/build_info.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <Kokkos_Core.hpp>
#include <fmt/format.h>

#include "kbrain_build_config.hpp"

namespace kbrain {

namespace {
std::string g_command;
}

std::string git_commit() {
  if (const char* env = std::getenv("KBRAIN_COMMIT"); env && *env) return env;
  std::string cmd = std::string("git -C '") + KBRAIN_SOURCE_DIR + "' rev-parse --short=10 HEAD 2>/dev/null";
  if (FILE* p = popen(cmd.c_str(), "r")) {
    std::array<char, 64> buf{};
    std::string out;
    while (fgets(buf.data(), buf.size(), p)) out += buf.data();
    pclose(p);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    if (!out.empty()) return out;
  }
  return KBRAIN_BUILD_COMMIT;
}

std::string today_iso() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  return fmt::format("{:04d}-{:02d}-{:02d}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

std::string kokkos_description() {
  const int v = KOKKOS_VERSION;
  return fmt::format("Kokkos {}.{}.{} ({})", v / 10000, (v / 100) % 100, v % 100, KBRAIN_KOKKOS_ORIGIN);
}

void set_command_line(int argc, char** argv) {
  g_command.clear();
  for (int i = 0; i < argc; ++i) {
    if (i) g_command += ' ';
    g_command += argv[i];
  }
}

std::string command_line() { return g_command; }

}  // namespace kbrain
