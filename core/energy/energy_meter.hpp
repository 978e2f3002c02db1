#pragma once
// The energy a phase of a run used, from the counters the hardware keeps: a GPU's total-energy counter through NVML
// (the driver's libnvidia-ml.so.1, loaded at run time, so that kbrain builds and runs where it is absent), the host's
// CPU packages through RAPL (Linux powercap, /sys/class/powercap/intel-rapl:N/energy_uj, where it is readable).
// Counters rather than sampled power: they integrate inside the hardware, so short phases are not undersampled.
// No counter: joules() is NaN and counter() says why ("n/a: ..."), and the run goes on.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace kbrain {

class EnergyMeter {
 public:
  enum class Source { Host, Gpu };

  // Starts counting now. gpu_index: the NVML index of the GPU (Source::Gpu only). The RAPL folder is
  // /sys/class/powercap unless KBRAIN_RAPL_ROOT names another (tests).
  EnergyMeter(Source source, int gpu_index);
  ~EnergyMeter();
  EnergyMeter(const EnergyMeter&) = delete;
  EnergyMeter& operator=(const EnergyMeter&) = delete;

  // Joules since construction (NaN without a counter).
  double joules() const;
  // "nvml (GPU 0)", "rapl (2 packages)", or "n/a: <why>".
  const std::string& counter() const { return counter_; }

 private:
  struct Rapl {
    std::filesystem::path energy_file;
    double range_uj = 0;  // the counter wraps at max_energy_range_uj
    double start_uj = 0;
  };
  struct Nvml;
  std::vector<Rapl> rapl_;
  std::unique_ptr<Nvml> nvml_;
  std::string counter_;
};

// The NVML index of the GPU Kokkos runs on: `device` counts the visible GPUs, so under CUDA_VISIBLE_DEVICES=3,1
// device 0 is NVML's 3 (a list of numbers; UUIDs keep the index).
int nvml_index(int device);

}  // namespace kbrain
