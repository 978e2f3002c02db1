#pragma once
// The synapses of a Galbraith network on the host, grouped by target as the study's loader groups them
// (003:L2733-2773): synapses into neuron i are src[offsets[i] .. offsets[i + 1]), in ascending source order.
// Topologies: ring (i -> i+1 mod N), full (every ordered pair, self loops too), random (exactly S distinct ordered
// pairs from the counter RNG: the same network on every backend) and a binary connection file.
// The binary format is the study's connections.bin (Listing C.4): 16-byte little-endian records
// `uint32 src, uint32 dst, float32 weight, float32 delay`. Host-only.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kbrain::galbraith {

enum class Topology { Ring, Full, Random, File };
const char* to_string(Topology t);

struct HostNetwork {
  std::int64_t neurons = 0;
  std::vector<std::int64_t> offsets;  // neurons + 1
  std::vector<std::int32_t> src;
  std::vector<float> weight;

  std::int64_t synapses() const { return static_cast<std::int64_t>(src.size()); }
};

HostNetwork ring_network(std::int64_t neurons, float weight);
HostNetwork full_network(std::int64_t neurons, float weight);
// Exactly `synapses` distinct ordered pairs (self pairs allowed), uniform over the N^2 pairs: pair k is drawn from
// counter_random_u64(seed, 0, draw) with rejection of repeats; above half of N^2 the complement is drawn instead.
HostNetwork random_network(std::int64_t neurons, std::int64_t synapses, std::uint64_t seed, float weight);

// A connection file read into a network of `neurons` neurons. Every problem (size not a multiple of 16, an id out of
// range, a weight that is not finite) throws ConfigError naming the file and the record (0-based).
// weights_from_file = false: every synapse gets `weight` (the study's loader ignores the file's weights).
HostNetwork read_connection_file(const std::filesystem::path& file, std::int64_t neurons, bool weights_from_file,
                                 float weight);
// Writes every synapse as a record, grouped by target; delay 0. Atomically (core/text/atomic_file.hpp).
void write_connection_file(const std::filesystem::path& file, const HostNetwork& net);

// Bytes of one record.
inline constexpr std::int64_t kConnectionRecordBytes = 16;

}  // namespace kbrain::galbraith
