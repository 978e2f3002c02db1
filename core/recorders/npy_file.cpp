// write_npy: the 1.0 header ("\x93NUMPY", version, little-endian header length, a Python dict literal padded with
// spaces and a newline to a multiple of 64 bytes), then the raw little-endian values.
#include "core/recorders/npy_file.hpp"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <stdexcept>

#include "core/text/atomic_file.hpp"

namespace kbrain {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, ".npy files are written little-endian as in memory");

constexpr char kMagic[] = "\x93NUMPY";

template <class T>
void write_values(const std::filesystem::path& file, const char* descr, const std::vector<T>& values) {
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({},), }}", descr, values.size());
  const std::size_t prefix = 6 + 2 + 2;  // magic, version, header length
  const std::size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header.push_back('\n');
  text::remove_planted_link(file);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", file.string()));
  out.write(kMagic, 6);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const std::uint16_t length = static_cast<std::uint16_t>(header.size());
  out.write(reinterpret_cast<const char*>(&length), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T)));
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", file.string()));
}

}  // namespace

void write_npy(const std::filesystem::path& file, const std::vector<std::int32_t>& values) {
  write_values(file, "<i4", values);
}
void write_npy(const std::filesystem::path& file, const std::vector<double>& values) {
  write_values(file, "<f8", values);
}
void write_npy(const std::filesystem::path& file, const std::vector<std::uint8_t>& values) {
  write_values(file, "|u1", values);
}

NpyHeader read_npy_header(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[6] = {}, version[2] = {};
  std::uint16_t length = 0;
  in.read(magic, 6);
  in.read(version, 2);
  in.read(reinterpret_cast<char*>(&length), 2);
  if (!in || std::memcmp(magic, kMagic, 6) != 0 || version[0] != 1)
    throw std::runtime_error(fmt::format("{}: not a version 1 .npy file", file.string()));
  std::string header(length, '\0');
  in.read(header.data(), length);
  if (!in) throw std::runtime_error(fmt::format("{}: truncated .npy header", file.string()));
  NpyHeader h;
  const auto d = header.find("'descr': '");
  const auto s = header.find("'shape': (");
  if (d == std::string::npos || s == std::string::npos || header.find("'fortran_order': False") == std::string::npos)
    throw std::runtime_error(fmt::format("{}: unexpected .npy header {}", file.string(), header));
  h.descr = header.substr(d + 10, header.find('\'', d + 10) - (d + 10));
  h.count = std::stoll(header.substr(s + 10));
  h.data_offset = 10 + length;
  return h;
}

}  // namespace kbrain
