#pragma once
// Sampled values of chosen cells as a SONATA report (HDF5; the SONATA data format's "frame oriented, node element
// recordings", which bmtk, libsonata and NEURON's reports use; kbrain writes the membrane potentials as voltage.h5):
//   /report/<population>/data                    float32, n_frames x n_values, attribute units (e.g. "mV")
//   /report/<population>/mapping/node_ids        uint64, n_nodes: the recorded cells, in column order
//   /report/<population>/mapping/index_pointers  uint64, n_nodes + 1: node i's values are columns
//                                                [index_pointers[i], index_pointers[i + 1]) of data
//   /report/<population>/mapping/element_ids     uint32, n_values: each value's element (compartment) id
//   /report/<population>/mapping/time            float64 [start, stop, dt], attribute units = "ms"; stop is open
//                                                (start + n_frames * dt), as the specification says
// Frames are held in memory until flush() (or until they fill 8 MiB), which appends them (an extendible chunked
// dataset) and brings `time` up to date, so memory stays bounded and a file cut short by a crash describes the
// frames it holds.
// Present only where kbrain was built with libhdf5 (sonata_spikes_available()), like the spike file.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace kbrain {

class SonataReportWriter {
 public:
  // Creates `file` (a link already there is removed, not followed). Every node reports the same elements,
  // element_ids (one value each); dt_ms turns a step into a time; every: the steps between frames, the frame
  // interval until two frames have set it.
  SonataReportWriter(const std::filesystem::path& file, const std::string& population,
                     const std::vector<std::int64_t>& node_ids, const std::vector<std::uint32_t>& element_ids,
                     const std::string& units, double dt_ms, std::int64_t every);
  ~SonataReportWriter();
  SonataReportWriter(SonataReportWriter&&) noexcept;
  SonataReportWriter& operator=(SonataReportWriter&&) noexcept;

  // One frame taken after `step` updates: n_nodes * n_elements values, node-major. Frames must be evenly spaced
  // (the layout stores one interval); a frame that is not throws std::runtime_error.
  void record(std::int64_t step, const std::vector<float>& frame);
  void flush();
  void close();  // flush and close

 private:
  struct File;
  std::unique_ptr<File> f_;
};

// Reading back a report (tests, tools): one population's datasets.
struct SonataReport {
  std::string units, time_units;
  std::vector<std::uint64_t> node_ids, index_pointers;
  std::vector<std::uint32_t> element_ids;
  double time[3] = {0, 0, 0};  // start, stop, dt
  std::uint64_t frames = 0, values = 0;
  std::vector<float> data;  // frames * values, frame-major
};
SonataReport read_sonata_report(const std::filesystem::path& file, const std::string& population);

}  // namespace kbrain
