#include "core/energy/energy_meter.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

namespace kbrain {

namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A counter file's number, or NaN when it cannot be read (permissions: recent kernels keep RAPL for root).
double read_counter(const fs::path& file) {
  std::ifstream in(file);
  double v = kNaN;
  if (!(in >> v) || v < 0) return kNaN;
  return v;
}

}  // namespace

// NVML's C entry points, declared here (the driver's library is loaded at run time; nvml.h is not needed to build).
struct EnergyMeter::Nvml {
  using Init = int (*)();
  using Shutdown = int (*)();
  using HandleByIndex = int (*)(unsigned int, void**);
  using TotalEnergy = int (*)(void*, unsigned long long*);  // mJ since the driver was loaded
  void* library = nullptr;
  Shutdown shutdown = nullptr;
  TotalEnergy total_energy = nullptr;
  void* device = nullptr;
  unsigned long long start_mj = 0;

  ~Nvml() {
    if (shutdown) shutdown();
    if (library) dlclose(library);
  }
  // "" when it counts, else why not.
  std::string open(int index) {
    library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) return "libnvidia-ml.so.1 (the NVIDIA driver's NVML) is not loadable";
    const auto init = reinterpret_cast<Init>(dlsym(library, "nvmlInit_v2"));
    const auto handle = reinterpret_cast<HandleByIndex>(dlsym(library, "nvmlDeviceGetHandleByIndex_v2"));
    total_energy = reinterpret_cast<TotalEnergy>(dlsym(library, "nvmlDeviceGetTotalEnergyConsumption"));
    if (!init || !handle || !total_energy) return "this NVML lacks the total-energy counter";
    if (init() != 0) return "nvmlInit failed";
    shutdown = reinterpret_cast<Shutdown>(dlsym(library, "nvmlShutdown"));
    if (handle(static_cast<unsigned int>(index), &device) != 0) return fmt::format("NVML has no GPU {}", index);
    if (total_energy(device, &start_mj) != 0) return "the GPU does not count its energy (NVML: not supported)";
    return "";
  }
};

EnergyMeter::EnergyMeter(Source source, int gpu_index) {
  if (source == Source::Gpu) {
    auto nvml = std::make_unique<Nvml>();
    const std::string why = nvml->open(gpu_index);
    if (why.empty()) {
      nvml_ = std::move(nvml);
      counter_ = fmt::format("nvml (GPU {})", gpu_index);
    } else {
      counter_ = "n/a: " + why;
    }
    return;
  }
  const char* root_env = std::getenv("KBRAIN_RAPL_ROOT");
  const fs::path root = root_env ? fs::path(root_env) : fs::path("/sys/class/powercap");
  std::error_code ec;
  bool unreadable = false;
  // The package domains (intel-rapl:N), not their subdomains (intel-rapl:N:M), which they already contain.
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("intel-rapl:", 0) != 0 || name.find(':', 11) != std::string::npos) continue;
    Rapl r;
    r.energy_file = entry.path() / "energy_uj";
    r.range_uj = read_counter(entry.path() / "max_energy_range_uj");
    r.start_uj = read_counter(r.energy_file);
    if (std::isnan(r.start_uj)) {
      unreadable = true;
      continue;
    }
    rapl_.push_back(r);
  }
  if (!rapl_.empty())
    counter_ = fmt::format("rapl ({} package{})", rapl_.size(), rapl_.size() == 1 ? "" : "s");
  else
    counter_ = unreadable ? "n/a: the RAPL counters are not readable by this user"
                          : "n/a: this machine has no RAPL counters (" + root.string() + ")";
}

EnergyMeter::~EnergyMeter() = default;

double EnergyMeter::joules() const {
  if (nvml_) {
    unsigned long long now = 0;
    if (nvml_->total_energy(nvml_->device, &now) != 0) return kNaN;
    return double(now - nvml_->start_mj) * 1e-3;
  }
  if (rapl_.empty()) return kNaN;
  double uj = 0;
  for (const Rapl& r : rapl_) {
    const double now = read_counter(r.energy_file);
    if (std::isnan(now)) return kNaN;
    double delta = now - r.start_uj;
    if (delta < 0) delta += r.range_uj > 0 ? r.range_uj : kNaN;  // wrapped once (a phase shorter than the range)
    uj += delta;
  }
  return uj * 1e-6;
}

int nvml_index(int device) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!visible || device < 0) return std::max(device, 0);
  std::stringstream list(visible);
  std::string item;
  for (int k = 0; std::getline(list, item, ','); ++k)
    if (k == device)
      return !item.empty() && std::all_of(item.begin(), item.end(), [](char c) { return std::isdigit((unsigned char)c); })
                 ? std::atoi(item.c_str())
                 : device;
  return device;
}

}  // namespace kbrain
