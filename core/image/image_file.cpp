#include "core/image/image_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include <stb_image.h>
#include <stb_image_write.h>

#include "core/text/atomic_file.hpp"

namespace kbrain::image {

namespace {
// stb's messages are short tags ("bad BMP", "unknown image type"); its failure reason is per thread.
std::string stb_reason() {
  const char* r = stbi_failure_reason();
  return r ? r : "unknown error";
}

std::uint32_t le(const unsigned char* p, int bytes) {
  std::uint32_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

// stb decodes a BMP whose pixel rows end early without complaint (missing bytes read as 0): an uncompressed BMP
// must hold every row its header promises.
void require_whole_bmp(FILE* f, const std::string& name) {
  unsigned char h[34] = {};
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  if (std::fread(h, 1, sizeof h, f) != sizeof h || h[0] != 'B' || h[1] != 'M' || le(h + 14, 4) < 40) return;
  const std::uint32_t compression = le(h + 30, 4), bpp = le(h + 28, 2);
  if (compression != 0 && compression != 3) return;  // RLE: stb checks as it decodes
  const auto width = static_cast<std::int64_t>(static_cast<std::int32_t>(le(h + 18, 4)));
  const auto height = static_cast<std::int64_t>(static_cast<std::int32_t>(le(h + 22, 4)));
  const std::int64_t row = (width * std::int64_t(bpp) + 31) / 32 * 4;
  const std::int64_t need = std::int64_t(le(h + 10, 4)) + row * (height < 0 ? -height : height);
  if (size >= 0 && size < need)
    throw ImageError(fmt::format("{}: truncated BMP: its header promises {} bytes, the file has {}", name, need, size));
}

// stb reserves a PNG data chunk's declared length before reading it (up to 1 GiB, doubled to a power of two), so a
// file of a few bytes could ask for gigabytes (found by tests/fuzz): every chunk up to IEND must fit in the file.
void require_whole_png_chunks(FILE* f, const std::string& name) {
  static const unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  unsigned char h[8] = {};
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  if (std::fread(h, 1, sizeof h, f) != sizeof h || std::memcmp(h, kSignature, sizeof h) != 0) return;
  for (long at = 8; at + 8 <= size; std::fseek(f, at, SEEK_SET)) {
    if (std::fread(h, 1, sizeof h, f) != sizeof h) return;
    const std::uint32_t length = (std::uint32_t(h[0]) << 24) | (std::uint32_t(h[1]) << 16) | (h[2] << 8) | h[3];
    if (std::int64_t(length) + 12 > std::int64_t(size) - at)
      throw ImageError(fmt::format("{}: truncated PNG: the chunk at byte {} declares {} bytes, the file has {} after "
                                   "it", name, at, length, std::max<std::int64_t>(0, std::int64_t(size) - at - 12)));
    at += 12 + static_cast<long>(length);  // length, type, data, CRC
    if (std::memcmp(h + 4, "IEND", 4) == 0) return;
  }
}

// stb 2022-09-08 builds a JPEG Huffman table without checking that its 16 counts add up to at most 256 codes, and
// writes past the table for more (heap corruption; found by tests/fuzz): every DHT table in the file is checked
// first. A DHT marker (FF C4) cannot occur inside entropy-coded data (an FF there is followed by 00 or a restart).
void require_sane_jpeg_tables(FILE* f, const std::string& name) {
  std::fseek(f, 0, SEEK_SET);
  std::vector<unsigned char> d;
  std::fseek(f, 0, SEEK_END);
  d.resize(static_cast<std::size_t>(std::max(0L, std::ftell(f))));
  std::fseek(f, 0, SEEK_SET);
  d.resize(std::fread(d.data(), 1, d.size(), f));
  std::size_t soi = 0;  // stb takes FF fill bytes before the start-of-image marker D8
  while (soi < d.size() && d[soi] == 0xFF) ++soi;
  if (soi == 0 || soi >= d.size() || d[soi] != 0xD8) return;  // not a JPEG
  for (std::size_t p = 0; p + 4 <= d.size(); ++p) {
    if (d[p] != 0xFF || d[p + 1] != 0xC4) continue;
    // As stb reads them: tables while the segment's length (less its own 2 bytes) is not used up.
    long left = long((std::size_t(d[p + 2]) << 8) | d[p + 3]) - 2;
    for (std::size_t t = p + 4; left > 0 && t < d.size();) {
      std::size_t codes = 0;  // stb reads bytes past the end of the file as 0
      for (std::size_t i = t + 1; i <= t + 16 && i < d.size(); ++i) codes += d[i];
      if (codes > 256)
        throw ImageError(fmt::format("{}: corrupt JPEG: a Huffman table at byte {} has {} codes (at most 256)", name,
                                     t, codes));
      t += 17 + codes;
      left -= long(17 + codes);
    }
  }
}
}  // namespace

std::int64_t decoded_image_bytes(std::int64_t width, std::int64_t height, int channels) {
  const std::int64_t pixels = width * height;
  return 2 * pixels * channels + height + 3 * pixels;
}

Rgb8Image read_rgb8(const std::filesystem::path& file, std::int64_t max_pixels,
                    const std::function<void(std::int64_t, std::int64_t, int)>& check_decoded) {
  const std::string name = file.string();
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(name.c_str(), "rb"), &std::fclose);
  if (!f) throw ImageError(fmt::format("{}: cannot open the image file ({})", name, std::strerror(errno)));
  int w = 0, h = 0, comp = 0;
  // The header first: a size is refused before any pixel is decoded.
  require_sane_jpeg_tables(f.get(), name);
  std::fseek(f.get(), 0, SEEK_SET);
  if (!stbi_info_from_file(f.get(), &w, &h, &comp))
    throw ImageError(fmt::format("{}: not a readable image (BMP, PNG, PPM, ...): {}", name, stb_reason()));
  if (w <= 0 || h <= 0) throw ImageError(fmt::format("{}: the image has no pixels ({} x {})", name, w, h));
  if (std::int64_t(w) * std::int64_t(h) > max_pixels)
    throw ImageError(fmt::format("{}: {} x {} = {} pixels; at most {}", name, w, h, std::int64_t(w) * h, max_pixels));
  if (check_decoded) check_decoded(w, h, comp);
  require_whole_bmp(f.get(), name);
  require_whole_png_chunks(f.get(), name);
  std::fseek(f.get(), 0, SEEK_SET);
  // The file's own channels (request 0), made RGB below: stb 2022-09-08 converts a 16-bit PGM to 3 channels with
  // its 8-bit routine and then reads past the end of that buffer (found by tests/fuzz; docs/testing.md).
  std::unique_ptr<stbi_uc, void (*)(void*)> data(stbi_load_from_file(f.get(), &w, &h, &comp, 0), &stbi_image_free);
  if (!data) throw ImageError(fmt::format("{}: the image cannot be decoded: {}", name, stb_reason()));
  if (comp < 1 || comp > 4) throw ImageError(fmt::format("{}: {} channels per pixel; 1 to 4 expected", name, comp));
  Rgb8Image img;
  img.width = w;
  img.height = h;
  img.rgb.resize(static_cast<std::size_t>(img.pixels()) * 3);
  // stb returns the top row first whatever the format (it flips bottom-up BMPs); BMP file order is bottom row first.
  // Grey (and grey + alpha) becomes three equal channels, alpha is dropped: what stb's own conversion does.
  const std::size_t width = static_cast<std::size_t>(w), channels = static_cast<std::size_t>(comp);
  for (std::int64_t y = 0; y < h; ++y) {
    const stbi_uc* src = data.get() + static_cast<std::size_t>(h - 1 - y) * width * channels;
    std::uint8_t* dst = img.rgb.data() + static_cast<std::size_t>(y) * width * 3;
    for (std::size_t x = 0; x < width; ++x, src += channels, dst += 3) {
      const bool colour = channels >= 3;
      dst[0] = src[0];
      dst[1] = colour ? src[1] : src[0];
      dst[2] = colour ? src[2] : src[0];
    }
  }
  return img;
}

void write_png_atomically(const std::filesystem::path& file, std::int64_t width, std::int64_t height,
                          const std::vector<std::uint8_t>& rgb_top_down) {
  if (width <= 0 || height <= 0 || width > std::numeric_limits<int>::max() / 3 ||
      height > std::numeric_limits<int>::max() ||
      rgb_top_down.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3)
    throw std::runtime_error(fmt::format("{}: cannot write a {} x {} PNG from {} bytes", file.string(), width, height,
                                         rgb_top_down.size()));
  std::string bytes;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &bytes, static_cast<int>(width), static_cast<int>(height), 3,
                              rgb_top_down.data(), static_cast<int>(width * 3)))
    throw std::runtime_error(fmt::format("{}: PNG encoding failed", file.string()));
  // write_file_atomically writes bytes as they are (binary mode): the same temporary-name-then-rename as text files.
  text::write_file_atomically(file, bytes);
}

}  // namespace kbrain::image
