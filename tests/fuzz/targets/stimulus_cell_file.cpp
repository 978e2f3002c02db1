// The per-cell stimulus file ([stimulus] kind = "cell_file"): line n+1 holds the currents of step n, one per cell,
// streamed a line at a time. A run of 4 cells and 16 steps asks for every step in order, as the runner does.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "core/inputs/stimulus.hpp"
#include "fuzz_expect.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto cfg = kbrain::fuzz::file_config<kbrain::StimulusConfig>("cell_file", data, size);
  kbrain::fuzz::expect_only<std::runtime_error>([&] {
    const auto stimulus = kbrain::make_stimulus(cfg, 4, 16);
    for (std::int64_t step = 0; step < 16; ++step) {
      const auto* currents = stimulus->per_cell_current(step);
      if (!currents || currents->size() != 4) __builtin_trap();  // the reader's promise: one value per cell
    }
  });
  return 0;
}
