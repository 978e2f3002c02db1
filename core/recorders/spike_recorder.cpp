// SpikeRecorder: spikes.csv ("step,cell"), spikes.kbs (binary) and/or spikes.h5 (SONATA), streamed and flushed on
// every record() call.
#include <fmt/format.h>

#include <cstring>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <system_error>

#include "core/recorders/trace_recorder.hpp"
#include "core/text/atomic_file.hpp"

namespace kbrain {
namespace {

constexpr char kSpikeMagic[8] = {'K', 'B', 'S', 'P', 'I', 'K', 'E', '1'};

void make_parent(const std::filesystem::path& file) {
  if (!file.has_parent_path()) return;
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec)
    throw std::runtime_error(fmt::format("cannot create directory {}: {}", file.parent_path().string(), ec.message()));
}

void put_u64(std::ostream& out, std::uint64_t v) {
  unsigned char b[8];
  for (int k = 0; k < 8; ++k) b[k] = static_cast<unsigned char>(v >> (8 * k));
  out.write(reinterpret_cast<const char*>(b), 8);
}

void put_i32(std::string& buf, std::int64_t v) {
  if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
    throw std::runtime_error("spikes.kbs: step or cell index beyond 32 bits");
  const auto u = static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
  for (int k = 0; k < 4; ++k) buf.push_back(static_cast<char>((u >> (8 * k)) & 0xff));
}

}  // namespace

SpikeRecorder::SpikeRecorder(const std::filesystem::path& csv_file, const std::filesystem::path& binary_file,
                             const SonataSpikeTarget& sonata) {
  if (!sonata.file.empty()) {
    make_parent(sonata.file);
    sonata_.emplace(sonata.file, sonata.population, sonata.dt_ms);
  }
  if (!csv_file.empty()) {
    make_parent(csv_file);
    text::remove_planted_link(csv_file);
    out_.open(csv_file, std::ios::out | std::ios::trunc);
    if (!out_) throw std::runtime_error(fmt::format("cannot create {}", csv_file.string()));
    out_ << "step,cell\n";
    out_.flush();
    if (!out_) throw std::runtime_error(fmt::format("writing {} failed", csv_file.string()));
  }
  if (!binary_file.empty()) {
    make_parent(binary_file);
    text::remove_planted_link(binary_file);
    bin_.open(binary_file, std::ios::out | std::ios::trunc | std::ios::binary);
    if (!bin_) throw std::runtime_error(fmt::format("cannot create {}", binary_file.string()));
    bin_.write(kSpikeMagic, sizeof kSpikeMagic);
    put_u64(bin_, 0);  // event count, written at close
    bin_.flush();
    if (!bin_) throw std::runtime_error(fmt::format("writing {} failed", binary_file.string()));
  }
}

void SpikeRecorder::record(const std::vector<std::pair<std::int64_t, std::int64_t>>& events) {
  if (events.empty()) return;
  if (out_.is_open()) {
    fmt::memory_buffer text;
    for (const auto& [step, cell] : events) fmt::format_to(std::back_inserter(text), "{},{}\n", step, cell);
    out_.write(text.data(), static_cast<std::streamsize>(text.size()));
    out_.flush();
    if (!out_) throw std::runtime_error("writing the spike file failed");
  }
  if (bin_.is_open()) {
    std::string buf;
    buf.reserve(events.size() * 8);
    for (const auto& [step, cell] : events) {
      put_i32(buf, step);
      put_i32(buf, cell);
    }
    bin_.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    bin_.flush();
    if (!bin_) throw std::runtime_error("writing the binary spike file failed");
  }
  if (sonata_) sonata_->record(events);
  count_ += static_cast<std::int64_t>(events.size());
}

void SpikeRecorder::close() {
  if (out_.is_open()) out_.close();
  if (sonata_) sonata_->close();
  if (bin_.is_open()) {
    bin_.seekp(sizeof kSpikeMagic);
    put_u64(bin_, static_cast<std::uint64_t>(count_));
    bin_.close();
  }
}

std::vector<std::pair<std::int64_t, std::int64_t>> read_binary_spikes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::in | std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot open spike file {}", file.string()));
  char magic[8];
  unsigned char n8[8];
  in.read(magic, 8);
  in.read(reinterpret_cast<char*>(n8), 8);
  if (!in || std::memcmp(magic, kSpikeMagic, 8) != 0)
    throw std::runtime_error(fmt::format("{} is not a kbrain spike file (bad magic)", file.string()));
  std::uint64_t n = 0;
  for (int k = 0; k < 8; ++k) n |= std::uint64_t(n8[k]) << (8 * k);
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(file, ec);
  if (ec || size < 16 || (size - 16) / 8 < n)
    throw std::runtime_error(fmt::format("spike file {}: {} events declared, file too short", file.string(), n));
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  out.reserve(n);
  unsigned char rec[8];
  for (std::uint64_t k = 0; k < n; ++k) {
    in.read(reinterpret_cast<char*>(rec), 8);
    std::uint32_t a = 0, b = 0;
    for (int j = 0; j < 4; ++j) {
      a |= std::uint32_t(rec[j]) << (8 * j);
      b |= std::uint32_t(rec[4 + j]) << (8 * j);
    }
    out.emplace_back(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b));
  }
  return out;
}

}  // namespace kbrain
