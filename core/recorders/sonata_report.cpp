// SonataReportWriter and read_sonata_report over the libhdf5 C API (core/recorders/sonata_report.hpp).
#include "core/recorders/sonata_report.hpp"

#include <fmt/format.h>

#include <algorithm>
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

// Rows per chunk of /data: about 256 KiB of float32 values, since readers mostly take a time window of a few cells
// or all cells at one time; at least one row.
hsize_t chunk_rows(hsize_t values) {
  return std::clamp<hsize_t>((hsize_t(1) << 16) / std::max<hsize_t>(1, values), 1, 4096);
}

// Frames held before they are appended whatever the caller's flushes: 8 MiB of values, as the runner's device
// samplers hold, so that a report of many cells stays bounded between the trace recorder's flushes (every 256
// samples).
constexpr std::size_t kMostPendingValues = std::size_t(2) << 20;

void write_time(hid_t set, const double (&time)[3]) {
  check(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, time), "writing mapping/time");
}

}  // namespace

struct SonataReportWriter::File {
  hid_t file = -1, report = -1, population = -1, mapping = -1, data = -1, time = -1;
  hsize_t values = 0, frames = 0;
  double dt_ms = 0;
  std::int64_t every = 1, first_step = -1, last_step = -1, interval = 0;  // interval: steps between frames, once known
  std::vector<float> pending;                                              // frames not yet appended
  hsize_t pending_frames = 0;
  void close() {
    if (time >= 0) H5Dclose(time);
    if (data >= 0) H5Dclose(data);
    if (mapping >= 0) H5Gclose(mapping);
    if (population >= 0) H5Gclose(population);
    if (report >= 0) H5Gclose(report);
    if (file >= 0) H5Fclose(file);
    time = data = mapping = population = report = file = -1;
  }
  // [start, stop, dt] of the frames appended so far; before the first, an empty interval at 0.
  void time_values(double (&t)[3]) const {
    const double dt = double(interval > 0 ? interval : every) * dt_ms;
    const double start = first_step >= 0 ? double(first_step) * dt_ms : 0.0;
    t[0] = start;
    t[1] = start + double(frames) * dt;
    t[2] = dt;
  }
};

SonataReportWriter::SonataReportWriter(const std::filesystem::path& file, const std::string& population,
                                       const std::vector<std::int64_t>& node_ids,
                                       const std::vector<std::uint32_t>& element_ids, const std::string& units,
                                       double dt_ms, std::int64_t every)
    : f_(std::make_unique<File>()) {
  f_->dt_ms = dt_ms;
  f_->every = std::max<std::int64_t>(1, every);
  f_->values = hsize_t(node_ids.size()) * hsize_t(element_ids.size());
  text::remove_planted_link(file);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions with the call's name, not stderr dumps
  try {
    if (f_->values == 0) throw std::invalid_argument("a report needs nodes and elements");
    f_->file = checked(H5Fcreate(file.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                       "creating the file");
    f_->report = checked(H5Gcreate2(f_->file, "report", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "/report");
    f_->population = checked(H5Gcreate2(f_->report, population.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                             "the population group");
    f_->mapping = checked(H5Gcreate2(f_->population, "mapping", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "mapping");

    std::vector<std::uint64_t> ids(node_ids.begin(), node_ids.end()), pointers;
    std::vector<std::uint32_t> elements;
    for (std::size_t i = 0; i <= node_ids.size(); ++i) pointers.push_back(i * element_ids.size());
    for (std::size_t i = 0; i < node_ids.size(); ++i)
      elements.insert(elements.end(), element_ids.begin(), element_ids.end());
    hdf5::fixed(f_->mapping, "node_ids", H5T_STD_U64LE, H5T_NATIVE_UINT64, ids.data(), ids.size());
    hdf5::fixed(f_->mapping, "index_pointers", H5T_STD_U64LE, H5T_NATIVE_UINT64, pointers.data(), pointers.size());
    hdf5::fixed(f_->mapping, "element_ids", H5T_STD_U32LE, H5T_NATIVE_UINT32, elements.data(), elements.size());

    double time[3];
    f_->time_values(time);
    const hsize_t three = 3;
    const hid_t time_space = checked(H5Screate_simple(1, &three, nullptr), "H5Screate_simple");
    f_->time = checked(H5Dcreate2(f_->mapping, "time", H5T_IEEE_F64LE, time_space, H5P_DEFAULT, H5P_DEFAULT,
                                  H5P_DEFAULT), "mapping/time");
    H5Sclose(time_space);
    write_time(f_->time, time);
    hdf5::string_attribute(f_->time, "units", "ms");

    const hsize_t empty[2] = {0, f_->values}, most[2] = {H5S_UNLIMITED, f_->values},
                  chunk[2] = {chunk_rows(f_->values), f_->values};
    const hid_t space = checked(H5Screate_simple(2, empty, most), "H5Screate_simple");
    const hid_t props = checked(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate");
    check(H5Pset_chunk(props, 2, chunk), "H5Pset_chunk");
    f_->data = checked(H5Dcreate2(f_->population, "data", H5T_IEEE_F32LE, space, H5P_DEFAULT, props, H5P_DEFAULT),
                       "data");
    H5Pclose(props);
    H5Sclose(space);
    hdf5::string_attribute(f_->data, "units", units);
    check(H5Fflush(f_->file, H5F_SCOPE_LOCAL), "H5Fflush");
  } catch (const std::exception& e) {
    f_->close();
    throw std::runtime_error(fmt::format("cannot create the SONATA report {}: {}", file.string(), e.what()));
  }
}

SonataReportWriter::~SonataReportWriter() {
  if (f_) f_->close();  // frames not flushed are dropped: close() explicitly to keep them and see errors
}
SonataReportWriter::SonataReportWriter(SonataReportWriter&&) noexcept = default;
SonataReportWriter& SonataReportWriter::operator=(SonataReportWriter&&) noexcept = default;

void SonataReportWriter::record(std::int64_t step, const std::vector<float>& frame) {
  if (!f_ || f_->file < 0) return;
  if (frame.size() != f_->values)
    throw std::invalid_argument(fmt::format("SONATA report: a frame of {} values, {} expected", frame.size(),
                                            f_->values));
  // The layout stores one interval: the first two frames set it, and every later frame must keep it.
  if (f_->first_step < 0) {
    f_->first_step = step;
  } else if (f_->interval == 0) {
    f_->interval = step - f_->last_step;
    if (f_->interval <= 0) throw std::runtime_error("SONATA report: frames out of order");
  } else if (step - f_->last_step != f_->interval) {
    throw std::runtime_error(fmt::format("SONATA report: the frame after step {} is at step {}, not {}: the report "
                                         "layout needs evenly spaced samples (choose record.every as a multiple "
                                         "of the model's steps per call)",
                                         f_->last_step, step, f_->last_step + f_->interval));
  }
  f_->last_step = step;
  f_->pending.insert(f_->pending.end(), frame.begin(), frame.end());
  ++f_->pending_frames;
  if (f_->pending.size() >= kMostPendingValues) flush();
}

void SonataReportWriter::flush() {
  if (!f_ || f_->file < 0) return;
  if (f_->pending_frames > 0) {
    const hsize_t at[2] = {f_->frames, 0}, n[2] = {f_->pending_frames, f_->values},
                  size[2] = {f_->frames + f_->pending_frames, f_->values};
    check(H5Dset_extent(f_->data, size), "H5Dset_extent");
    const hid_t file_space = checked(H5Dget_space(f_->data), "H5Dget_space");
    check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, at, nullptr, n, nullptr), "H5Sselect_hyperslab");
    const hid_t memory_space = checked(H5Screate_simple(2, n, nullptr), "H5Screate_simple");
    const herr_t written = H5Dwrite(f_->data, H5T_NATIVE_FLOAT, memory_space, file_space, H5P_DEFAULT,
                                    f_->pending.data());
    H5Sclose(memory_space);
    H5Sclose(file_space);
    check(written, "H5Dwrite");
    f_->frames += f_->pending_frames;
    f_->pending_frames = 0;
    f_->pending.clear();
  }
  double time[3];
  f_->time_values(time);
  write_time(f_->time, time);
  check(H5Fflush(f_->file, H5F_SCOPE_LOCAL), "H5Fflush");
}

void SonataReportWriter::close() {
  if (!f_ || f_->file < 0) return;
  flush();
  f_->close();
}

namespace {

// Owns an hid_t and closes it with `close` (read_sonata_report's error paths).
template <herr_t (*Close)(hid_t)>
struct Handle {
  hid_t id;
  explicit Handle(hid_t i, const char* what) : id(checked(i, what)) {}
  ~Handle() { Close(id); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};
using FileHandle = Handle<H5Fclose>;
using SetHandle = Handle<H5Dclose>;
using SpaceHandle = Handle<H5Sclose>;
using AttrHandle = Handle<H5Aclose>;
using TypeHandle = Handle<H5Tclose>;

std::vector<hsize_t> extent(hid_t set) {
  SpaceHandle space(H5Dget_space(set), "H5Dget_space");
  const int rank = H5Sget_simple_extent_ndims(space.id);
  if (rank < 0) throw std::runtime_error("libhdf5: H5Sget_simple_extent_ndims failed");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  check(H5Sget_simple_extent_dims(space.id, dims.data(), nullptr), "H5Sget_simple_extent_dims");
  return dims;
}

template <class T>
std::vector<T> read_all(hid_t file, const std::string& path, hid_t memory_type) {
  SetHandle set(H5Dopen2(file, path.c_str(), H5P_DEFAULT), path.c_str());
  hsize_t n = 1;
  for (hsize_t d : extent(set.id)) n *= d;
  std::vector<T> out(n);
  if (n > 0) check(H5Dread(set.id, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), path.c_str());
  return out;
}

std::string read_string_attribute(hid_t file, const std::string& path, const char* name) {
  SetHandle set(H5Dopen2(file, path.c_str(), H5P_DEFAULT), path.c_str());
  AttrHandle attr(H5Aopen(set.id, name, H5P_DEFAULT), name);
  TypeHandle type(H5Aget_type(attr.id), "H5Aget_type");
  std::string value(H5Tget_size(type.id), '\0');
  check(H5Aread(attr.id, type.id, value.data()), name);
  return value.substr(0, value.find('\0'));
}

}  // namespace

SonataReport read_sonata_report(const std::filesystem::path& file, const std::string& population) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  try {
    FileHandle f(H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "opening the file");
    const std::string base = "/report/" + population;
    SonataReport r;
    r.node_ids = read_all<std::uint64_t>(f.id, base + "/mapping/node_ids", H5T_NATIVE_UINT64);
    r.index_pointers = read_all<std::uint64_t>(f.id, base + "/mapping/index_pointers", H5T_NATIVE_UINT64);
    r.element_ids = read_all<std::uint32_t>(f.id, base + "/mapping/element_ids", H5T_NATIVE_UINT32);
    const auto time = read_all<double>(f.id, base + "/mapping/time", H5T_NATIVE_DOUBLE);
    if (time.size() != 3) throw std::runtime_error("mapping/time does not hold 3 values");
    std::copy(time.begin(), time.end(), r.time);
    r.time_units = read_string_attribute(f.id, base + "/mapping/time", "units");
    r.units = read_string_attribute(f.id, base + "/data", "units");
    {
      SetHandle data(H5Dopen2(f.id, (base + "/data").c_str(), H5P_DEFAULT), "data");
      const auto dims = extent(data.id);
      if (dims.size() != 2) throw std::runtime_error("data is not two-dimensional");
      r.frames = dims[0];
      r.values = dims[1];
    }
    r.data = read_all<float>(f.id, base + "/data", H5T_NATIVE_FLOAT);
    return r;
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("SONATA report {}: {}", file.string(), e.what()));
  }
}

#else  // built without libhdf5

struct SonataReportWriter::File {};

SonataReportWriter::SonataReportWriter(const std::filesystem::path& file, const std::string&,
                                       const std::vector<std::int64_t>&, const std::vector<std::uint32_t>&,
                                       const std::string&, double, std::int64_t) {
  throw std::runtime_error(fmt::format("cannot write {}: this kbrain was built without libhdf5", file.string()));
}
SonataReportWriter::~SonataReportWriter() = default;
SonataReportWriter::SonataReportWriter(SonataReportWriter&&) noexcept = default;
SonataReportWriter& SonataReportWriter::operator=(SonataReportWriter&&) noexcept = default;
void SonataReportWriter::record(std::int64_t, const std::vector<float>&) {}
void SonataReportWriter::flush() {}
void SonataReportWriter::close() {}

SonataReport read_sonata_report(const std::filesystem::path& file, const std::string&) {
  throw std::runtime_error(fmt::format("cannot read {}: this kbrain was built without libhdf5", file.string()));
}

#endif

}  // namespace kbrain
