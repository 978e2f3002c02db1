#pragma once
// Reading run.json back (core/recorders/run_manifest.hpp writes it): one flat JSON object whose values are strings,
// numbers, true/false or null. For the commands that read a finished run folder (`kbrain stats`).
#include <filesystem>

#include "core/recorders/run_manifest.hpp"

namespace kbrain {

// The strings go to `fields`, the numbers to `numbers`, "complete" to `complete`; other true/false values to
// `numbers` as 1/0; null values (a NaN or infinite number when written) are left out. Throws std::runtime_error
// naming the file for a missing file, a nested value or text that is not JSON.
RunManifest read_manifest(const std::filesystem::path& file);

}  // namespace kbrain
