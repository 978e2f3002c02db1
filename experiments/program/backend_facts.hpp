#pragma once
// What the run/compare commands need to know about a backend chosen by name, in one place: its hardware line,
// whether it is a GPU, how many parallel units it has; the slow-backend step budget; the reference backend.
#include <cstdint>
#include <string>
#include <vector>

namespace kbrain {

struct BackendFacts {
  bool gpu = false;
  int units = 1;
  std::string description;  // "NVIDIA H200 (132 SMs, sm_90, ...)"
};

BackendFacts backend_facts(const std::string& name);  // throws UnknownBackend

// The backend's copy bandwidth in bytes per second (the faster of deep_copy and a copy kernel, best of 5 copies of
// 256 MiB each way; backends/copy_bandwidth.hpp), measured once per process on first use; NaN when the buffers cannot
// be allocated. compare's "% of copy" divides by it.
double backend_copy_bytes_per_second(const std::string& name);

// Steps a backend runs within the slow-backend budget of `budget` unit-steps (x units for multi-threaded CPU
// backends); GPU backends always run all `steps`.
std::int64_t budget_steps(const BackendFacts& f, std::int64_t work_units, std::int64_t steps, std::int64_t budget);

// The run every row is compared with: serial double when serial is among the compared backends; otherwise the first
// compared backend in double (e.g. `--backends cuda` at published scale, where a serial run would take hours).
std::string reference_backend(const std::vector<std::string>& compared);

}  // namespace kbrain
