// TraceRecorder (CSV, binary "KBTRACE1" and, through SonataReportWriter, voltage.h5) and read_binary_trace.
// Byte layout: docs/output-formats.md.
#include "core/recorders/trace_recorder.hpp"

#include <fmt/format.h>

#include <cstring>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <system_error>

#include "core/text/atomic_file.hpp"

namespace kbrain {
namespace {

// --- binary layout (all little-endian, no padding) ---------------------------------------------------------------
constexpr char kMagic[8] = {'K', 'B', 'T', 'R', 'A', 'C', 'E', '1'};
constexpr std::uint32_t kVersion = 1;
constexpr std::streamoff kSampleCountOffset = 44;  // magic 8 + version 4 + precision 4 + n_vars 4 + n_cells 8 +
                                                   // every 8 + dt 8
constexpr std::int64_t kSampleCountOpen = -1;      // written while the file is open; replaced by close()

// Flush policy: often enough that an interrupted run keeps its data, rarely enough to stay cheap (and at least every
// kOutputFlushInterval).
constexpr std::int64_t kFlushEverySamples = 256;

void append_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFu));
}
void append_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFu));
}
void append_i64(std::string& out, std::int64_t v) { append_u64(out, static_cast<std::uint64_t>(v)); }
void append_f64(std::string& out, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  append_u64(out, bits);
}
void append_f32(std::string& out, float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  append_u32(out, bits);
}

std::uint64_t load_le(const unsigned char* p, int nbytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < nbytes; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}
double load_f64(const unsigned char* p) {
  const std::uint64_t bits = load_le(p, 8);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
float load_f32(const unsigned char* p) {
  const auto bits = static_cast<std::uint32_t>(load_le(p, 4));
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// Sequential reader of the header; any short read is a truncated header.
class HeaderReader {
 public:
  HeaderReader(std::ifstream& in, const std::filesystem::path& file) : in_(in), file_(file) {}
  void bytes(void* dst, std::size_t n) {
    in_.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
    if (static_cast<std::size_t>(in_.gcount()) != n)
      throw std::runtime_error(fmt::format("trace file {}: truncated inside the header", file_.string()));
    consumed_ += n;
  }
  std::uint64_t u(int nbytes) {
    unsigned char b[8];
    bytes(b, static_cast<std::size_t>(nbytes));
    return load_le(b, nbytes);
  }
  double f64() {
    unsigned char b[8];
    bytes(b, 8);
    return load_f64(b);
  }
  std::uint64_t consumed() const { return consumed_; }

 private:
  std::ifstream& in_;
  const std::filesystem::path& file_;
  std::uint64_t consumed_ = 0;
};

}  // namespace

TraceRecorder::TraceRecorder(const std::filesystem::path& dir, const TraceSpec& spec) : spec_(spec) {
  if (spec_.every < 1) throw std::invalid_argument(fmt::format("trace: every must be >= 1 (got {})", spec_.every));
  if (spec_.variables.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("trace: too many variables");

  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create directory {}: {}", dir.string(), ec.message()));
  bin_path_ = dir / "trace.kbt";

  if (spec_.csv) {
    const auto csv_path = dir / "trace.csv";
    text::remove_planted_link(csv_path);
    csv_.open(csv_path, std::ios::out | std::ios::trunc);
    if (!csv_) throw std::runtime_error(fmt::format("cannot create {}", csv_path.string()));
    fmt::memory_buffer header;
    fmt::format_to(std::back_inserter(header), "step,time_ms");
    for (const auto& var : spec_.variables)
      for (auto cell : spec_.cells) fmt::format_to(std::back_inserter(header), ",{}_{}", var, cell);
    header.push_back('\n');
    csv_.write(header.data(), static_cast<std::streamsize>(header.size()));
  }

  if (spec_.binary) {
    text::remove_planted_link(bin_path_);
    bin_.open(bin_path_, std::ios::out | std::ios::trunc | std::ios::binary);
    if (!bin_) throw std::runtime_error(fmt::format("cannot create {}", bin_path_.string()));
    std::string header(kMagic, sizeof kMagic);
    append_u32(header, kVersion);
    append_u32(header, spec_.single_precision ? 4u : 8u);
    append_u32(header, static_cast<std::uint32_t>(spec_.variables.size()));
    append_u64(header, spec_.cells.size());
    append_i64(header, spec_.every);
    append_f64(header, spec_.dt_ms);
    append_i64(header, kSampleCountOpen);
    for (const auto& var : spec_.variables) {
      append_u32(header, static_cast<std::uint32_t>(var.size()));
      header += var;
    }
    for (auto cell : spec_.cells) append_i64(header, cell);
    bin_.write(header.data(), static_cast<std::streamsize>(header.size()));
  }
  if (!spec_.report_slots.empty() && !spec_.cells.empty()) {
    for (const std::size_t slot : spec_.report_slots)
      if (slot >= spec_.variables.size())
        throw std::invalid_argument(fmt::format("trace: report slot {} is not a recorded variable", slot));
    if (spec_.report_elements.size() != spec_.report_slots.size())
      throw std::invalid_argument("trace: one element id per reported variable");
    report_.emplace(dir / "voltage.h5", spec_.report_population, spec_.cells, spec_.report_elements, "mV",
                    spec_.dt_ms, spec_.every);
    frame_.resize(spec_.cells.size() * spec_.report_slots.size());
  }
  flush();  // headers are on disk even if the run dies before the first sample
}

TraceRecorder::~TraceRecorder() {
  try {
    close();
  } catch (...) {
    // a destructor must not throw; close() explicitly to see errors
  }
}

void TraceRecorder::record(std::int64_t step, const double* values) {
  if (!csv_.is_open() && !bin_.is_open() && !report_) return;  // nothing requested, or already closed
  const std::size_t count = spec_.variables.size() * spec_.cells.size();
  if (values == nullptr && count > 0) throw std::invalid_argument("trace: record() got a null values pointer");

  if (report_) {  // SONATA frames are node-major (a node's elements together); the samples are variable-major
    const std::size_t ncells = spec_.cells.size(), nslots = spec_.report_slots.size();
    for (std::size_t c = 0; c < ncells; ++c)
      for (std::size_t k = 0; k < nslots; ++k)
        frame_[c * nslots + k] = static_cast<float>(values[spec_.report_slots[k] * ncells + c]);
    report_->record(step, frame_);
  }

  if (csv_.is_open()) {
    fmt::memory_buffer line;
    auto out = std::back_inserter(line);
    fmt::format_to(out, "{},{:.12g}", step, static_cast<double>(step) * spec_.dt_ms);
    for (std::size_t i = 0; i < count; ++i) {
      if (spec_.single_precision)
        fmt::format_to(out, ",{:.9g}", static_cast<double>(static_cast<float>(values[i])));
      else
        fmt::format_to(out, ",{:.17g}", values[i]);
    }
    line.push_back('\n');
    csv_.write(line.data(), static_cast<std::streamsize>(line.size()));
  }

  if (bin_.is_open()) {
    std::string sample;
    sample.reserve(8 + count * (spec_.single_precision ? 4 : 8));
    append_i64(sample, step);
    for (std::size_t i = 0; i < count; ++i) {
      if (spec_.single_precision)
        append_f32(sample, static_cast<float>(values[i]));
      else
        append_f64(sample, values[i]);
    }
    bin_.write(sample.data(), static_cast<std::streamsize>(sample.size()));
  }

  ++samples_;
  ++since_flush_;
  if (since_flush_ >= kFlushEverySamples || std::chrono::steady_clock::now() - last_flush_ >= kOutputFlushInterval)
    flush();
}

void TraceRecorder::flush() {
  if (csv_.is_open()) {
    csv_.flush();
    if (!csv_)
      throw std::runtime_error(fmt::format("writing {} failed", (bin_path_.parent_path() / "trace.csv").string()));
  }
  if (bin_.is_open()) {
    bin_.flush();
    if (!bin_) throw std::runtime_error(fmt::format("writing {} failed", bin_path_.string()));
  }
  if (report_) report_->flush();
  since_flush_ = 0;
  last_flush_ = std::chrono::steady_clock::now();
}

void TraceRecorder::close() {
  if (!csv_.is_open() && !bin_.is_open() && !report_) return;
  flush();
  if (bin_.is_open()) {
    std::string count;
    append_i64(count, samples_);
    bin_.seekp(kSampleCountOffset);
    bin_.write(count.data(), static_cast<std::streamsize>(count.size()));
    bin_.close();
    if (!bin_) throw std::runtime_error(fmt::format("finishing {} failed", bin_path_.string()));
  }
  if (csv_.is_open()) csv_.close();
  if (report_) {
    report_->close();
    report_.reset();  // closed: a second close() does nothing
  }
}

TraceFile read_binary_trace(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::in | std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot open trace file {}", file.string()));
  std::error_code ec;
  const std::uint64_t file_size = std::filesystem::file_size(file, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot stat trace file {}: {}", file.string(), ec.message()));

  HeaderReader h(in, file);
  char magic[8];
  h.bytes(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0)
    throw std::runtime_error(fmt::format("{} is not a kbrain binary trace (bad magic)", file.string()));
  const auto version = static_cast<std::uint32_t>(h.u(4));
  if (version != kVersion)
    throw std::runtime_error(fmt::format("trace file {}: unsupported version {} (expected {})", file.string(), version,
                                         kVersion));
  const auto precision = static_cast<std::uint32_t>(h.u(4));
  if (precision != 4 && precision != 8)
    throw std::runtime_error(fmt::format("trace file {}: bad precision code {}", file.string(), precision));
  const auto n_vars = static_cast<std::uint32_t>(h.u(4));
  const std::uint64_t n_cells = h.u(8);

  TraceFile t;
  t.every = static_cast<std::int64_t>(h.u(8));
  t.dt_ms = h.f64();
  const auto declared_samples = static_cast<std::int64_t>(h.u(8));

  // Sizes come from the file: check them against what is left before allocating.
  const auto remaining = [&] { return file_size > h.consumed() ? file_size - h.consumed() : 0; };
  for (std::uint32_t v = 0; v < n_vars; ++v) {
    const std::uint64_t len = h.u(4);
    if (len > remaining())
      throw std::runtime_error(fmt::format("trace file {}: truncated inside the header", file.string()));
    std::string name(static_cast<std::size_t>(len), '\0');
    h.bytes(name.data(), name.size());
    t.variables.push_back(std::move(name));
  }
  if (n_cells > remaining() / 8)
    throw std::runtime_error(fmt::format("trace file {}: truncated inside the header", file.string()));
  t.cells.reserve(static_cast<std::size_t>(n_cells));
  for (std::uint64_t c = 0; c < n_cells; ++c) t.cells.push_back(static_cast<std::int64_t>(h.u(8)));

  // Samples: the declared count when the file was closed, else (or when cut short) what the size allows.
  const std::uint64_t values_per_sample = static_cast<std::uint64_t>(n_vars) * n_cells;
  const std::uint64_t sample_bytes = 8 + values_per_sample * precision;
  std::uint64_t n_samples = remaining() / sample_bytes;
  if (declared_samples >= 0 && static_cast<std::uint64_t>(declared_samples) < n_samples)
    n_samples = static_cast<std::uint64_t>(declared_samples);

  t.steps.reserve(static_cast<std::size_t>(n_samples));
  t.values.reserve(static_cast<std::size_t>(n_samples * values_per_sample));
  std::string buf(static_cast<std::size_t>(sample_bytes), '\0');
  for (std::uint64_t s = 0; s < n_samples; ++s) {
    in.read(buf.data(), static_cast<std::streamsize>(sample_bytes));
    if (static_cast<std::uint64_t>(in.gcount()) != sample_bytes)
      throw std::runtime_error(fmt::format("trace file {}: read error in sample {}", file.string(), s));
    const auto* p = reinterpret_cast<const unsigned char*>(buf.data());
    t.steps.push_back(static_cast<std::int64_t>(load_le(p, 8)));
    p += 8;
    for (std::uint64_t i = 0; i < values_per_sample; ++i, p += precision)
      t.values.push_back(precision == 4 ? static_cast<double>(load_f32(p)) : load_f64(p));
  }
  return t;
}

}  // namespace kbrain
