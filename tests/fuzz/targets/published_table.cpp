// A study's published table for `kbrain reproduce` (experiments/studies/<study>/*.csv): '#' lines, header, numbers.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "experiments/program/reproduce/published_table.hpp"
#include "fuzz_expect.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static kbrain::fuzz::FuzzFile file;
  const auto& path = file.write(data, size);
  kbrain::fuzz::expect_only<std::runtime_error>([&] {
    const kbrain::PublishedTable t = kbrain::load_published_table(path);
    if (!t.header.empty()) (void)t.column(t.header.back());
  });
  return 0;
}
