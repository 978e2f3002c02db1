#include "models/galbraith_lif/galbraith_network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <fstream>
#include <unordered_set>

#include "core/config/experiment_config.hpp"
#include "core/rng/counter_rng.hpp"
#include "core/text/atomic_file.hpp"

namespace kbrain::galbraith {

const char* to_string(Topology t) {
  switch (t) {
    case Topology::Ring: return "ring";
    case Topology::Full: return "full";
    case Topology::Random: return "random";
    case Topology::File: return "file";
  }
  return "";
}

namespace {

// A network from pair keys dst * N + src (any order, no repeats): sorted, so grouped by target, ascending source.
HostNetwork from_keys(std::int64_t neurons, std::vector<std::uint64_t>& keys, float weight) {
  std::sort(keys.begin(), keys.end());
  HostNetwork net;
  net.neurons = neurons;
  net.offsets.assign(static_cast<std::size_t>(neurons + 1), 0);
  net.src.reserve(keys.size());
  for (const std::uint64_t k : keys) {
    ++net.offsets[static_cast<std::size_t>(k / std::uint64_t(neurons)) + 1];
    net.src.push_back(static_cast<std::int32_t>(k % std::uint64_t(neurons)));
  }
  for (std::size_t i = 1; i < net.offsets.size(); ++i) net.offsets[i] += net.offsets[i - 1];
  net.weight.assign(net.src.size(), weight);
  return net;
}

// `count` distinct keys below `pairs`, uniform: draw k of the counter stream maps to floor(r * pairs / 2^64).
std::vector<std::uint64_t> distinct_keys(std::uint64_t pairs, std::uint64_t count, std::uint64_t seed) {
  std::unordered_set<std::uint64_t> seen;
  seen.reserve(static_cast<std::size_t>(count) * 2);
  std::vector<std::uint64_t> keys;
  keys.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t draw = 0; keys.size() < count; ++draw) {
    const auto r = static_cast<unsigned __int128>(counter_random_u64(seed, 0, draw));
    const auto key = static_cast<std::uint64_t>((r * pairs) >> 64);
    if (seen.insert(key).second) keys.push_back(key);
  }
  return keys;
}

void put_u32(char* p, std::uint32_t v) {
  for (int b = 0; b < 4; ++b) p[b] = static_cast<char>((v >> (8 * b)) & 0xff);
}
std::uint32_t get_u32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}
float as_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
std::uint32_t float_bits(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

}  // namespace

HostNetwork ring_network(std::int64_t neurons, float weight) {
  HostNetwork net;
  net.neurons = neurons;
  net.offsets.resize(static_cast<std::size_t>(neurons + 1));
  for (std::int64_t i = 0; i <= neurons; ++i) net.offsets[static_cast<std::size_t>(i)] = i;
  net.src.resize(static_cast<std::size_t>(neurons));
  for (std::int64_t i = 0; i < neurons; ++i)  // into i from i - 1 (mod N)
    net.src[static_cast<std::size_t>(i)] = static_cast<std::int32_t>((i + neurons - 1) % neurons);
  net.weight.assign(net.src.size(), weight);
  return net;
}

HostNetwork full_network(std::int64_t neurons, float weight) {
  HostNetwork net;
  net.neurons = neurons;
  net.offsets.resize(static_cast<std::size_t>(neurons + 1));
  for (std::int64_t i = 0; i <= neurons; ++i) net.offsets[static_cast<std::size_t>(i)] = i * neurons;
  net.src.resize(static_cast<std::size_t>(neurons * neurons));
  for (std::int64_t i = 0; i < neurons; ++i)
    for (std::int64_t j = 0; j < neurons; ++j) net.src[static_cast<std::size_t>(i * neurons + j)] = static_cast<std::int32_t>(j);
  net.weight.assign(net.src.size(), weight);
  return net;
}

HostNetwork random_network(std::int64_t neurons, std::int64_t synapses, std::uint64_t seed, float weight) {
  const auto pairs = static_cast<std::uint64_t>(neurons) * static_cast<std::uint64_t>(neurons);
  const auto wanted = static_cast<std::uint64_t>(synapses);
  std::vector<std::uint64_t> keys;
  if (wanted <= pairs / 2) {
    keys = distinct_keys(pairs, wanted, seed);
  } else {  // dense: draw the pairs left out, keep the others
    std::vector<std::uint64_t> out = distinct_keys(pairs, pairs - wanted, seed);
    std::sort(out.begin(), out.end());
    keys.reserve(static_cast<std::size_t>(wanted));
    std::size_t next = 0;
    for (std::uint64_t k = 0; k < pairs; ++k) {
      if (next < out.size() && out[next] == k) {
        ++next;
        continue;
      }
      keys.push_back(k);
    }
  }
  return from_keys(neurons, keys, weight);
}

HostNetwork read_connection_file(const std::filesystem::path& file, std::int64_t neurons, bool weights_from_file,
                                 float weight) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(file, ec);
  if (ec) throw ConfigError(fmt::format("{}: cannot read the connection file ({})", file.string(), ec.message()));
  if (bytes % kConnectionRecordBytes != 0)
    throw ConfigError(fmt::format("{}: {} bytes is not a whole number of 16-byte records (uint32 src, uint32 dst, "
                                  "float32 weight, float32 delay); the last record is cut after {} bytes",
                                  file.string(), bytes, bytes % kConnectionRecordBytes));
  const std::int64_t records = static_cast<std::int64_t>(bytes) / kConnectionRecordBytes;
  if (records > std::int64_t(std::numeric_limits<std::int32_t>::max()))
    throw ConfigError(fmt::format("{}: {} records; at most 2^31 - 1 synapses are supported", file.string(), records));
  std::vector<unsigned char> data(static_cast<std::size_t>(bytes));
  std::ifstream in(file, std::ios::binary);
  if (!in || !in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(bytes)))
    throw ConfigError(fmt::format("{}: cannot read the connection file", file.string()));
  // First pass (as the study's loader): validate and count the synapses of each target.
  HostNetwork net;
  net.neurons = neurons;
  net.offsets.assign(static_cast<std::size_t>(neurons + 1), 0);
  for (std::int64_t r = 0; r < records; ++r) {
    const unsigned char* p = data.data() + r * kConnectionRecordBytes;
    const std::uint32_t src = get_u32(p), dst = get_u32(p + 4);
    const float w = as_float(get_u32(p + 8)), delay = as_float(get_u32(p + 12));
    auto bad = [&](const std::string& what) {
      throw ConfigError(fmt::format("{}: record {} (byte {}): {}", file.string(), r, r * kConnectionRecordBytes, what));
    };
    if (std::int64_t(src) >= neurons) bad(fmt::format("source {} is out of range [0, {})", src, neurons));
    if (std::int64_t(dst) >= neurons) bad(fmt::format("target {} is out of range [0, {})", dst, neurons));
    if (!std::isfinite(w)) bad(fmt::format("weight {} is not a finite number", w));
    if (!std::isfinite(delay) || delay < 0) bad(fmt::format("delay {} is not a finite number >= 0", delay));
    ++net.offsets[dst + 1];
  }
  for (std::size_t i = 1; i < net.offsets.size(); ++i) net.offsets[i] += net.offsets[i - 1];
  // Second pass: fill, keeping the file's order within a target.
  std::vector<std::int64_t> fill(net.offsets.begin(), net.offsets.end() - 1);
  net.src.resize(static_cast<std::size_t>(records));
  net.weight.resize(static_cast<std::size_t>(records));
  for (std::int64_t r = 0; r < records; ++r) {
    const unsigned char* p = data.data() + r * kConnectionRecordBytes;
    const auto at = static_cast<std::size_t>(fill[get_u32(p + 4)]++);
    net.src[at] = static_cast<std::int32_t>(get_u32(p));
    net.weight[at] = weights_from_file ? as_float(get_u32(p + 8)) : weight;
  }
  return net;
}

void write_connection_file(const std::filesystem::path& file, const HostNetwork& net) {
  std::string bytes(static_cast<std::size_t>(net.synapses() * kConnectionRecordBytes), '\0');
  char* record = bytes.data();
  for (std::int64_t dst = 0; dst < net.neurons; ++dst)
    for (std::int64_t s = net.offsets[static_cast<std::size_t>(dst)]; s < net.offsets[static_cast<std::size_t>(dst + 1)];
         ++s, record += kConnectionRecordBytes) {
      put_u32(record, static_cast<std::uint32_t>(net.src[static_cast<std::size_t>(s)]));
      put_u32(record + 4, static_cast<std::uint32_t>(dst));
      put_u32(record + 8, float_bits(net.weight[static_cast<std::size_t>(s)]));
      put_u32(record + 12, float_bits(0.0f));
    }
  text::write_file_atomically(file, bytes);
}

}  // namespace kbrain::galbraith
