// The experiment-file loader: TOML text -> validated ExperimentConfig against every model's tables. Its documented
// error is ConfigError (one message naming the file and key or line); nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/config/experiment_config.hpp"
#include "fuzz_catalog.hpp"
#include "fuzz_expect.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // A folder that does not exist: file keys resolve against it and are refused, nothing on disk is read.
  const char* source = "/nonexistent-kbrain-fuzz/experiment.toml";
  kbrain::fuzz::expect_only<kbrain::ConfigError>(
      [&] { kbrain::parse_experiment(text, source, kbrain::fuzz::schema_catalog()); });
  return 0;
}
