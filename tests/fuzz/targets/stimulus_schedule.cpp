// The stimulus schedule file ([stimulus] kind = "schedule", file = ...): one value per line, read whole; then every
// step of a run is asked for its current (steps past the end get 0).
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "core/inputs/stimulus.hpp"
#include "fuzz_expect.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto cfg = kbrain::fuzz::file_config<kbrain::StimulusConfig>("schedule", data, size);
  kbrain::fuzz::expect_only<std::runtime_error>([&] {
    const auto stimulus = kbrain::make_stimulus(cfg, 4, 64);
    for (std::int64_t step = 0; step < 64; ++step) (void)stimulus->uniform_current(step);
  });
  return 0;
}
