// The g_CaL file ([cells.g_cal] kind = "file"): whitespace-separated values, one per cell, for 10 cells.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "core/inputs/g_cal.hpp"
#include "fuzz_expect.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto cfg = kbrain::fuzz::file_config<kbrain::GCaLConfig>("file", data, size);
  kbrain::fuzz::expect_only<std::runtime_error>([&] { kbrain::make_g_cal(cfg, 10); });
  return 0;
}
