#include "backends/hardware_info.hpp"

#include <fstream>
#include <sstream>
#include <unistd.h>

namespace kbrain {

std::string host_cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto pos = line.find(':');
      if (pos != std::string::npos) {
        auto s = line.substr(pos + 1);
        s.erase(0, s.find_first_not_of(" \t"));
        return s;
      }
    }
  }
  return "unknown CPU";
}

static std::uint64_t meminfo_kib(const char* key) {
  std::ifstream in("/proc/meminfo");
  std::string name;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> name >> kib >> unit) {
    if (name == key) return kib;
  }
  return 0;
}

std::uint64_t host_memory_bytes() {
  auto kib = meminfo_kib("MemTotal:");
  if (kib) return kib * 1024;
  return static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
}

std::uint64_t host_available_memory_bytes() { return meminfo_kib("MemAvailable:") * 1024; }

}  // namespace kbrain
