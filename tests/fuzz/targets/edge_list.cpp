// The sparse edge list (network.type = "edge_list"). The network size is fixed at 64 cells, as network.cells fixes
// it in an experiment: with network.cells unset the file's own `cells N` header sizes the CSR (16 bytes a cell, up to
// 2^31 - 1 cells) before any junction is read, and a tiny file could then ask for gigabytes (docs/testing.md).
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "core/network/gap_network.hpp"
#include "fuzz_expect.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& file = kbrain::fuzz::input_file(data, size);
  kbrain::fuzz::expect_only<std::runtime_error, std::invalid_argument>([&] { kbrain::read_edge_list(file, 64); });
  return 0;
}
