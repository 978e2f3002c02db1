#pragma once
// Spikes as a SONATA spike file (HDF5; the SONATA data format's "spikes" layout, which NEST, Arbor, bmtk and the
// SONATA readers open): /spikes/<population>/timestamps (float64, attribute units = "ms") and
// /spikes/<population>/node_ids (uint64), group attribute sorting = "by_time", and the file's magic and version
// attributes on /spikes. Written as the run drains its spikes (extendible chunked datasets), so memory stays bounded.
// Present only where kbrain was built with libhdf5 (sonata_spikes_available()); the experiment loader refuses
// `sonata = true` otherwise.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kbrain {

bool sonata_spikes_available();

// The loader's refusal of `sonata = true` in a build without libhdf5.
inline constexpr const char* kNoSonata =
    "asks for a SONATA spike file, which needs libhdf5; this kbrain was built without it (install libhdf5-dev, as "
    "scripts/setup_deps.sh does, and rebuild)";

class SonataSpikeWriter {
 public:
  // Creates `file` (a link already there is removed, not followed); dt_ms turns a step index into a time.
  SonataSpikeWriter(const std::filesystem::path& file, const std::string& population, double dt_ms);
  ~SonataSpikeWriter();
  SonataSpikeWriter(SonataSpikeWriter&&) noexcept;
  SonataSpikeWriter& operator=(SonataSpikeWriter&&) noexcept;

  // events: (step, node), sorted by (step, node); steps ascend across calls. Time = step * dt_ms.
  void record(const std::vector<std::pair<std::int64_t, std::int64_t>>& events);
  void close();

 private:
  struct File;
  std::unique_ptr<File> f_;
};

}  // namespace kbrain
