// read_sonata_spikes over the libhdf5 C API: the groups under /spikes by name, each one's two datasets read whole.
#include "core/recorders/sonata_spikes_reader.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#if defined(KBRAIN_HAVE_HDF5)
#include "core/recorders/hdf5_calls.hpp"
#endif

namespace kbrain {

#if defined(KBRAIN_HAVE_HDF5)

namespace {

using hdf5::check;
using hdf5::checked;

// An hid_t closed with `Close` however the reading ends.
template <herr_t (*Close)(hid_t)>
struct Owned {
  hid_t id;
  Owned(hid_t i, const char* what) : id(checked(i, what)) {}
  ~Owned() { Close(id); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
};

template <class T>
std::vector<T> read_whole(hid_t group, const char* name, hid_t memory_type) {
  Owned<H5Dclose> set(H5Dopen2(group, name, H5P_DEFAULT), name);
  Owned<H5Sclose> space(H5Dget_space(set.id), "H5Dget_space");
  if (H5Sget_simple_extent_ndims(space.id) != 1)
    throw std::runtime_error(fmt::format("{} is not one-dimensional", name));
  hsize_t n = 0;
  check(H5Sget_simple_extent_dims(space.id, &n, nullptr), "H5Sget_simple_extent_dims");
  std::vector<T> out(n);
  if (n > 0) check(H5Dread(set.id, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), name);
  return out;
}

}  // namespace

std::vector<SonataSpikePopulation> read_sonata_spikes(const std::filesystem::path& file) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions with the call's name, not stderr dumps
  try {
    Owned<H5Fclose> f(H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "opening the file");
    Owned<H5Gclose> spikes(H5Gopen2(f.id, "spikes", H5P_DEFAULT), "the group /spikes");
    H5G_info_t info;
    check(H5Gget_info(spikes.id, &info), "H5Gget_info");
    std::vector<SonataSpikePopulation> out;
    for (hsize_t i = 0; i < info.nlinks; ++i) {
      const ssize_t length =
          H5Lget_name_by_idx(spikes.id, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
      if (length < 0) throw std::runtime_error("H5Lget_name_by_idx failed");
      std::string name(static_cast<std::size_t>(length) + 1, '\0');
      H5Lget_name_by_idx(spikes.id, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT);
      name.resize(static_cast<std::size_t>(length));
      Owned<H5Gclose> population(H5Gopen2(spikes.id, name.c_str(), H5P_DEFAULT), "a population group");
      SonataSpikePopulation p{name, read_whole<double>(population.id, "timestamps", H5T_NATIVE_DOUBLE),
                              read_whole<std::uint64_t>(population.id, "node_ids", H5T_NATIVE_UINT64)};
      if (p.timestamps.size() != p.node_ids.size())
        throw std::runtime_error(fmt::format("population {}: {} timestamps but {} node ids", name,
                                             p.timestamps.size(), p.node_ids.size()));
      out.push_back(std::move(p));
    }
    return out;
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("{}: not a readable SONATA spike file ({})", file.string(), e.what()));
  }
}

#else  // built without libhdf5

std::vector<SonataSpikePopulation> read_sonata_spikes(const std::filesystem::path& file) {
  throw std::runtime_error(fmt::format("{}: a SONATA spike file, which needs libhdf5; this kbrain was built without it",
                                       file.string()));
}

#endif

}  // namespace kbrain
