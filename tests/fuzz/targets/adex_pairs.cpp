// adex_costa's integer-pair files: the connection file (network.file, "pre post") and the spike-time file
// (spikes.file, "source step"), both read by text::read_int_pairs. The checks are the model's (models/adex_costa/
// adex_plan.cpp) for 64 x 64 synapse slots: ids in range, steps >= 0; an accepted pair must index the matrix.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/text/int_pairs.hpp"
#include "fuzz_expect.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr long long kNeurons = 64;
  std::vector<std::uint8_t> conn(kNeurons * kNeurons, 0);
  const auto& file = kbrain::fuzz::input_file(data, size);
  kbrain::fuzz::expect_only<kbrain::ConfigError>([&] {
    kbrain::text::read_int_pairs(
        file, "pre post",
        [](long long a, long long b) {
          if (a < 0 || a >= kNeurons) return std::string("first id out of range");
          if (b < 0) return std::string("second value negative");
          return std::string();
        },
        [&](long long a, long long b) {
          if (b < kNeurons) conn.at(static_cast<std::size_t>(a * kNeurons + b)) = 1;
        });
  });
  return 0;
}
