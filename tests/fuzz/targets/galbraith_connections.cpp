// galbraith_lif's binary connection file (network.topology = "file"): 16-byte records uint32 src, uint32 dst,
// float32 weight, float32 delay, read into a network of 16 neurons with the file's weights. Its error: ConfigError.
#include <cstddef>
#include <cstdint>

#include "core/config/experiment_config.hpp"
#include "fuzz_expect.hpp"
#include "fuzz_file.hpp"
#include "models/galbraith_lif/galbraith_network.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& file = kbrain::fuzz::input_file(data, size);
  kbrain::fuzz::expect_only<kbrain::ConfigError>([&] {
    const auto net = kbrain::galbraith::read_connection_file(file, 16, true, 0.5f);
    if (net.offsets.size() != 17 || net.offsets.back() != net.synapses()) __builtin_trap();  // a broken CSR
  });
  return 0;
}
