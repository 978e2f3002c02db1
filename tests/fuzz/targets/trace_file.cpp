// The binary trace (trace.kbt, docs/output-formats.md) read back by read_binary_trace: sizes in its header come
// from the file and must be checked against the file's length before anything is allocated.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "core/recorders/trace_recorder.hpp"
#include "fuzz_expect.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& file = kbrain::fuzz::input_file(data, size);
  kbrain::fuzz::expect_only<std::runtime_error>([&] { kbrain::read_binary_trace(file); });
  return 0;
}
