#pragma once
// One-dimensional NumPy arrays (.npy, format version 1.0, little-endian, C order) written from host vectors, so that
// Python reads them with numpy.load. Used for arrays too large or too plain for CSV (a network's synapses).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kbrain {

// The dtype descriptors written: '<i4' (int32), '<f8' (float64), '|u1' (uint8).
void write_npy(const std::filesystem::path& file, const std::vector<std::int32_t>& values);
void write_npy(const std::filesystem::path& file, const std::vector<double>& values);
void write_npy(const std::filesystem::path& file, const std::vector<std::uint8_t>& values);

// The header of a .npy file as written above: {descr, count}; throws std::runtime_error for anything else.
struct NpyHeader {
  std::string descr;
  std::int64_t count = 0;
  std::int64_t data_offset = 0;  // bytes before the first value
};
NpyHeader read_npy_header(const std::filesystem::path& file);

}  // namespace kbrain
