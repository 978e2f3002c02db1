// SonataSpikeWriter over the libhdf5 C API (core/recorders/sonata_spikes.hpp).
#include "core/recorders/sonata_spikes.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/text/atomic_file.hpp"

#if defined(KBRAIN_HAVE_HDF5)
#include "core/recorders/hdf5_calls.hpp"
#endif

namespace kbrain {

#if defined(KBRAIN_HAVE_HDF5)

namespace {

using hdf5::check;
using hdf5::checked;
using hdf5::string_attribute;
using hdf5::u32_attribute;

constexpr hsize_t kChunk = 1 << 16;  // events per chunk: large enough for throughput, small for short runs

hid_t extendible(hid_t group, const char* name, hid_t file_type) {
  const hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = kChunk;
  const hid_t space = checked(H5Screate_simple(1, &zero, &unlimited), "H5Screate_simple");
  const hid_t props = checked(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate");
  check(H5Pset_chunk(props, 1, &chunk), "H5Pset_chunk");
  const hid_t set = checked(H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, props, H5P_DEFAULT), name);
  H5Pclose(props);
  H5Sclose(space);
  return set;
}

void append(hid_t set, hid_t memory_type, const void* data, hsize_t at, hsize_t n) {
  const hsize_t size = at + n;
  check(H5Dset_extent(set, &size), "H5Dset_extent");
  const hid_t file_space = checked(H5Dget_space(set), "H5Dget_space");
  check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &at, nullptr, &n, nullptr), "H5Sselect_hyperslab");
  const hid_t memory_space = checked(H5Screate_simple(1, &n, nullptr), "H5Screate_simple");
  check(H5Dwrite(set, memory_type, memory_space, file_space, H5P_DEFAULT, data), "H5Dwrite");
  H5Sclose(memory_space);
  H5Sclose(file_space);
}

}  // namespace

struct SonataSpikeWriter::File {
  hid_t file = -1, spikes = -1, population = -1, timestamps = -1, node_ids = -1;
  double dt_ms = 0;
  hsize_t count = 0;
  void close() {
    if (node_ids >= 0) H5Dclose(node_ids);
    if (timestamps >= 0) H5Dclose(timestamps);
    if (population >= 0) H5Gclose(population);
    if (spikes >= 0) H5Gclose(spikes);
    if (file >= 0) H5Fclose(file);
    node_ids = timestamps = population = spikes = file = -1;
  }
};

bool sonata_spikes_available() { return true; }

SonataSpikeWriter::SonataSpikeWriter(const std::filesystem::path& file, const std::string& population, double dt_ms)
    : f_(std::make_unique<File>()) {
  f_->dt_ms = dt_ms;
  text::remove_planted_link(file);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions with the call's name, not stderr dumps
  try {
    f_->file = checked(H5Fcreate(file.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                       "creating the file");
    f_->spikes = checked(H5Gcreate2(f_->file, "spikes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "/spikes");
    u32_attribute(f_->spikes, "magic", {0x0A7A});
    u32_attribute(f_->spikes, "version", {0, 1});
    f_->population = checked(H5Gcreate2(f_->spikes, population.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                             "the population group");
    string_attribute(f_->population, "sorting", "by_time");
    f_->timestamps = extendible(f_->population, "timestamps", H5T_IEEE_F64LE);
    string_attribute(f_->timestamps, "units", "ms");
    f_->node_ids = extendible(f_->population, "node_ids", H5T_STD_U64LE);
  } catch (...) {
    f_->close();
    throw std::runtime_error(fmt::format("cannot create the SONATA spike file {}", file.string()));
  }
}

SonataSpikeWriter::~SonataSpikeWriter() {
  if (f_) f_->close();
}
SonataSpikeWriter::SonataSpikeWriter(SonataSpikeWriter&&) noexcept = default;
SonataSpikeWriter& SonataSpikeWriter::operator=(SonataSpikeWriter&&) noexcept = default;

void SonataSpikeWriter::record(const std::vector<std::pair<std::int64_t, std::int64_t>>& events) {
  if (events.empty() || !f_ || f_->file < 0) return;
  std::vector<double> t;
  std::vector<std::uint64_t> id;
  t.reserve(events.size());
  id.reserve(events.size());
  for (const auto& [step, node] : events) {
    t.push_back(double(step) * f_->dt_ms);
    id.push_back(static_cast<std::uint64_t>(node));
  }
  const hsize_t n = events.size();
  append(f_->timestamps, H5T_NATIVE_DOUBLE, t.data(), f_->count, n);
  append(f_->node_ids, H5T_NATIVE_UINT64, id.data(), f_->count, n);
  f_->count += n;
  check(H5Fflush(f_->file, H5F_SCOPE_LOCAL), "H5Fflush");
}

void SonataSpikeWriter::close() {
  if (f_) f_->close();
}

#else  // built without libhdf5

bool sonata_spikes_available() { return false; }

struct SonataSpikeWriter::File {};

SonataSpikeWriter::SonataSpikeWriter(const std::filesystem::path& file, const std::string&, double) {
  throw std::runtime_error(fmt::format("cannot write {}: this kbrain was built without libhdf5", file.string()));
}
SonataSpikeWriter::~SonataSpikeWriter() = default;
SonataSpikeWriter::SonataSpikeWriter(SonataSpikeWriter&&) noexcept = default;
SonataSpikeWriter& SonataSpikeWriter::operator=(SonataSpikeWriter&&) noexcept = default;
void SonataSpikeWriter::record(const std::vector<std::pair<std::int64_t, std::int64_t>>&) {}
void SonataSpikeWriter::close() {}

#endif

}  // namespace kbrain
