// SpikeRecorder: spikes.csv ("step,cell"), streamed and flushed on every record() call.
#include "core/recorders/trace_recorder.hpp"

#include <fmt/format.h>

#include <iterator>
#include <stdexcept>
#include <system_error>

namespace kbrain {

SpikeRecorder::SpikeRecorder(const std::filesystem::path& csv_file) {
  if (csv_file.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(csv_file.parent_path(), ec);
    if (ec)
      throw std::runtime_error(
          fmt::format("cannot create directory {}: {}", csv_file.parent_path().string(), ec.message()));
  }
  out_.open(csv_file, std::ios::out | std::ios::trunc);
  if (!out_) throw std::runtime_error(fmt::format("cannot create {}", csv_file.string()));
  out_ << "step,cell\n";
  out_.flush();
  if (!out_) throw std::runtime_error(fmt::format("writing {} failed", csv_file.string()));
}

void SpikeRecorder::record(const std::vector<std::pair<std::int64_t, std::int64_t>>& events) {
  if (!out_.is_open() || events.empty()) return;
  fmt::memory_buffer text;
  for (const auto& [step, cell] : events) fmt::format_to(std::back_inserter(text), "{},{}\n", step, cell);
  out_.write(text.data(), static_cast<std::streamsize>(text.size()));
  out_.flush();
  if (!out_) throw std::runtime_error("writing the spike file failed");
  count_ += static_cast<std::int64_t>(events.size());
}

void SpikeRecorder::close() {
  if (out_.is_open()) out_.close();
}

}  // namespace kbrain
