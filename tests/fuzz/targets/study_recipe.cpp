// A study recipe of `kbrain reproduce` (experiments/studies/<study>.toml): tables, columns, ratios, scales.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "experiments/program/reproduce/study_recipe.hpp"
#include "fuzz_expect.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static kbrain::fuzz::FuzzFile file;
  const auto& path = file.write(data, size);
  kbrain::fuzz::expect_only<std::runtime_error>([&] { (void)kbrain::load_study_recipe(path); });
  return 0;
}
