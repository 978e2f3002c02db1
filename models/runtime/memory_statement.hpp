#pragma once
// What a run allocates, stated before anything is: every model's plan says how much host memory its own arrays take
// (RunPlan::host_bytes, checked against the host's available memory before they are built), and its simulation
// says, from the plan alone, what the run adds on the host and on the backend (`static MemoryStatement
// memory(const Plan&, const RunRequest&)`, which also refuses a run that does not fit). `kbrain run` asks for it
// before the output folder exists and writes it into run.json; the runner asks again before constructing the
// simulation, so compare and tests are refused the same way. A refusal is a ConfigError (exit 2) naming the bytes
// needed, the bytes available and, where the model can say, the largest network that fits.
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "backends/hardware_info.hpp"
#include "core/config/experiment_config.hpp"

namespace kbrain {

struct MemoryStatement {
  double host_bytes = 0;    // what the run adds on the host beyond the plan (staging, mirrors, host copies)
  double device_bytes = 0;  // on the simulating backend (on CPU backends this is host memory too)
};

// "1.50 GiB (1610612736 bytes)": the rounded size to read and the exact count to compare.
inline std::string byte_text(double bytes) {
  return fmt::format("{:.2f} GiB ({:.0f} bytes)", bytes / 1073741824.0, bytes);
}

// The largest n in [0, hi] with bytes(n) <= available, for bytes increasing in n (0 when even 1 does not fit).
template <class Bytes>
std::int64_t largest_fitting(std::int64_t hi, double available, Bytes bytes) {
  if (bytes(hi) <= available) return hi;
  std::int64_t lo = 0;  // fits (or 0), hi does not
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (bytes(mid) <= available ? lo : hi) = mid;
  }
  return lo;
}

// A refusal for memory: a ConfigError (exit 2) that a sweep over sizes (kbrain compare) can tell from a mistake in
// the experiment, and record for that size instead of stopping.
struct NotEnoughMemory : ConfigError {
  using ConfigError::ConfigError;
};

// Refuses (NotEnoughMemory: "<where>: <what> needs X of host memory but Y are available[; <fits>]") `need` bytes of
// host memory beyond what the host has available; an unknown amount available (0) is not checked.
inline void require_host_bytes(double need, double available, const std::string& where, const std::string& what,
                               const std::string& fits = "") {
  if (available <= 0 || need <= available) return;
  throw NotEnoughMemory(fmt::format("{}: {} needs {} of host memory but {} are available{}{}", where, what,
                                byte_text(need), byte_text(available), fits.empty() ? "" : "; ", fits));
}
inline void require_host_bytes(double need, const std::string& where, const std::string& what,
                               const std::string& fits = "") {
  require_host_bytes(need, double(host_available_memory_bytes()), where, what, fits);
}

}  // namespace kbrain
