#pragma once
// Reading a SONATA spike file back (core/recorders/sonata_spikes.hpp writes it): every population under /spikes with
// its timestamps (ms) and node ids, in file order. For the commands that read a finished run (`kbrain stats`).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kbrain {

struct SonataSpikePopulation {
  std::string name;
  std::vector<double> timestamps;
  std::vector<std::uint64_t> node_ids;
};

// Throws std::runtime_error naming the file where it cannot be read as such (and always in a build without libhdf5:
// sonata_spikes_available() is false).
std::vector<SonataSpikePopulation> read_sonata_spikes(const std::filesystem::path& file);

}  // namespace kbrain
