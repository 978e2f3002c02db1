#pragma once
// libhdf5 C calls shared by the SONATA writers (sonata_spikes.cpp, sonata_report.cpp): a failed call becomes an
// exception naming it, so a full disk or a broken file stops the run with a message instead of a stderr dump.
// Included only by those .cpp files, and only where kbrain was built with libhdf5 (KBRAIN_HAVE_HDF5).
#include <hdf5.h>

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbrain::hdf5 {

inline hid_t checked(hid_t id, const char* what) {
  if (id < 0) throw std::runtime_error(fmt::format("libhdf5: {} failed", what));
  return id;
}

inline void check(herr_t e, const char* what) {
  if (e < 0) throw std::runtime_error(fmt::format("libhdf5: {} failed", what));
}

inline void string_attribute(hid_t on, const char* name, const std::string& value) {
  const hid_t type = checked(H5Tcopy(H5T_C_S1), "H5Tcopy");
  check(H5Tset_size(type, value.size()), "H5Tset_size");
  check(H5Tset_strpad(type, H5T_STR_NULLTERM), "H5Tset_strpad");
  const hid_t space = checked(H5Screate(H5S_SCALAR), "H5Screate");
  const hid_t attr = checked(H5Acreate2(on, name, type, space, H5P_DEFAULT, H5P_DEFAULT), "H5Acreate2");
  check(H5Awrite(attr, type, value.c_str()), "H5Awrite");
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
}

inline void u32_attribute(hid_t on, const char* name, const std::vector<std::uint32_t>& values) {
  const hsize_t n = values.size();
  const hid_t space = checked(n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), "H5Screate");
  const hid_t attr = checked(H5Acreate2(on, name, H5T_STD_U32LE, space, H5P_DEFAULT, H5P_DEFAULT), "H5Acreate2");
  check(H5Awrite(attr, H5T_NATIVE_UINT32, values.data()), "H5Awrite");
  H5Aclose(attr);
  H5Sclose(space);
}

// A fixed-size 1-D dataset written whole.
inline void fixed(hid_t group, const char* name, hid_t file_type, hid_t memory_type, const void* data, hsize_t n) {
  const hid_t space = checked(H5Screate_simple(1, &n, nullptr), "H5Screate_simple");
  const hid_t set = checked(H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), name);
  if (n > 0) check(H5Dwrite(set, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
  H5Dclose(set);
  H5Sclose(space);
}

}  // namespace kbrain::hdf5
