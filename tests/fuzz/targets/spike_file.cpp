// The binary spike file (spikes.kbs, docs/output-formats.md) read back by read_binary_spikes: the declared event
// count must be checked against the file's length before anything is allocated.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "core/recorders/trace_recorder.hpp"
#include "fuzz_expect.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& file = kbrain::fuzz::input_file(data, size);
  kbrain::fuzz::expect_only<std::runtime_error>([&] { kbrain::read_binary_spikes(file); });
  return 0;
}
