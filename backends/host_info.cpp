#include "backends/hardware_info.hpp"
#include "backends/host_shared_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

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

// A "Key:  N kB" line of /proc/self/status (0 when absent).
static std::uint64_t own_status_kib(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) {
      std::istringstream fields(line.substr(key.size()));
      std::uint64_t kib = 0;
      fields >> kib;
      return kib;
    }
  return 0;
}

std::uint64_t host_shared_available_memory_bytes() { return meminfo_kib("MemAvailable:") * 1024; }

// What the machine has available, or less where the process' own address-space limit (ulimit -v) leaves less: a
// run checked against it is refused with a message instead of ending in std::bad_alloc.
std::uint64_t host_available_memory_bytes() {
  std::uint64_t available = meminfo_kib("MemAvailable:") * 1024;
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const std::uint64_t used = own_status_kib("VmSize:") * 1024;
    const std::uint64_t left = limit.rlim_cur > used ? std::uint64_t(limit.rlim_cur) - used : 1;  // 1: known, none
    if (available == 0 || left < available) available = left;
  }
  return available;
}

}  // namespace kbrain
