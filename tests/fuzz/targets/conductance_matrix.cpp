// The dense conductance matrix (network.type = "matrix_file"), any size (expected cells 0). Its memory grows with
// the input only (N values on the first line give N cells), so no size cap is needed.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "core/network/gap_network.hpp"
#include "fuzz_expect.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& file = kbrain::fuzz::input_file(data, size);
  kbrain::fuzz::expect_only<std::runtime_error, std::invalid_argument>(
      [&] { kbrain::read_conductance_matrix(file, 0); });
  return 0;
}
