#pragma once
// Streams chosen state variables of chosen cells every k steps to CSV, a compact binary file and/or, for the membrane
// potentials among them, a SONATA report (formats in docs/output-formats.md). Data is flushed as the run goes: an
// interrupted run keeps what it wrote.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "core/recorders/sonata_report.hpp"
#include "core/recorders/sonata_spikes.hpp"

namespace kbrain {

// The longest an output file lags behind the run: the recorders flush at least this often, and the runner moves the
// samples held on the device to them at least this often (models/runtime/model_runner.hpp), so that a run cut short
// keeps all but the last moments. Rarely enough that the flushes cost nothing measurable.
inline constexpr std::chrono::milliseconds kOutputFlushInterval{1000};

struct TraceSpec {
  std::vector<std::string> variables;   // names, in output order
  std::vector<std::int64_t> cells;      // cell ids, in output order
  std::int64_t every = 1;
  double dt_ms = 0.05;
  bool csv = true, binary = false;
  bool single_precision = false;        // binary payload float32 instead of float64
  // The SONATA voltage report (voltage.h5): the positions in `variables` of the membrane potentials (mV) it holds,
  // empty for none; each one's element id (its compartment: 0 for a single-compartment cell); the population name.
  std::vector<std::size_t> report_slots;
  std::vector<std::uint32_t> report_elements;
  std::string report_population = "neurons";
};

class TraceRecorder {
 public:
  // Creates <dir>/trace.csv, <dir>/trace.kbt and/or <dir>/voltage.h5. Throws std::runtime_error if a file cannot be
  // created.
  TraceRecorder(const std::filesystem::path& dir, const TraceSpec& spec);
  ~TraceRecorder();
  bool wants(std::int64_t step) const { return step % spec_.every == 0; }
  // values: variables.size() * cells.size(), variable-major (values[v * ncells + c]); `step` = updates done.
  void record(std::int64_t step, const double* values);
  void flush();
  void close();  // flush and close; the binary header gets the final sample count
  const TraceSpec& spec() const { return spec_; }

 private:
  TraceSpec spec_;
  std::ofstream csv_, bin_;
  std::optional<SonataReportWriter> report_;
  std::vector<float> frame_;  // one report frame, node-major (reused)
  std::int64_t samples_ = 0;
  std::int64_t since_flush_ = 0;
  std::chrono::steady_clock::time_point last_flush_{};  // wall time of the last flush
  std::filesystem::path bin_path_;
};

// Where a SONATA spike file goes (core/recorders/sonata_spikes.hpp); an empty file leaves it out.
struct SonataSpikeTarget {
  std::filesystem::path file;
  std::string population;
  double dt_ms = 0;
};

// Spikes in (step, cell) order, streamed: CSV rows "step,cell" (spikes.csv), the binary spikes.kbs
// (docs/output-formats.md: magic "KBSPIKE1", uint64 event count written at close, then int32 (step, cell) pairs,
// little-endian) and/or a SONATA spike file (spikes.h5). An empty path leaves that format out.
class SpikeRecorder {
 public:
  explicit SpikeRecorder(const std::filesystem::path& csv_file, const std::filesystem::path& binary_file = {},
                         const SonataSpikeTarget& sonata = {});
  // events sorted by (step, cell)
  void record(const std::vector<std::pair<std::int64_t, std::int64_t>>& events);
  void close();
  std::int64_t count() const { return count_; }

 private:
  std::ofstream out_, bin_;
  std::optional<SonataSpikeWriter> sonata_;
  std::int64_t count_ = 0;
};

// The spike recorder of an output folder for the record formats chosen (`csv` -> spikes.csv, `binary` ->
// spikes.kbs, `sonata` -> spikes.h5 with one population named `population`; none -> spikes.csv, so that
// `spikes = true` always writes something).
inline SpikeRecorder open_spike_files(const std::filesystem::path& dir, bool csv, bool binary, bool sonata = false,
                                      const std::string& population = "neurons", double dt_ms = 0) {
  if (!csv && !binary && !sonata) csv = true;
  return SpikeRecorder(csv ? dir / "spikes.csv" : std::filesystem::path(),
                       binary ? dir / "spikes.kbs" : std::filesystem::path(),
                       sonata ? SonataSpikeTarget{dir / "spikes.h5", population, dt_ms} : SonataSpikeTarget{});
}

// Reading back spikes.kbs (tests, tools): (step, cell) pairs.
std::vector<std::pair<std::int64_t, std::int64_t>> read_binary_spikes(const std::filesystem::path& file);

// Reading back the binary trace (tests, tools).
struct TraceFile {
  std::vector<std::string> variables;
  std::vector<std::int64_t> cells;
  std::int64_t every = 1;
  double dt_ms = 0;
  std::vector<std::int64_t> steps;   // per sample
  std::vector<double> values;        // samples * variables * cells, sample-major then variable-major
};
TraceFile read_binary_trace(const std::filesystem::path& file);

}  // namespace kbrain
