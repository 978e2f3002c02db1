#pragma once
// RGB image files for the models that read or draw pictures (the Galbraith SOM): any format stb_image reads (BMP,
// PNG, PPM/PGM binary, JPEG, TGA, ...) read as 8-bit RGB in BMP file order, and PNG written atomically.
// "File order" is BMP's for every format: the bottom row first, each row left to right (a top-down format such as
// PNG or PPM is flipped on reading), so that a training sequence does not depend on the container the picture came
// in. Host-only (stb, Debian libstb-dev: the library holds the implementations, nothing here defines them).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbrain::image {

// Raised for an unreadable or malformed file; the message starts with the file's path and says why.
struct ImageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// 8-bit RGB pixels, 3 bytes each, rows of `width` pixels, bottom row first (BMP file order).
struct Rgb8Image {
  std::int64_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
  std::int64_t pixels() const { return width * height; }
};

// Host bytes of decoding a width x height picture of `channels` channels into an Rgb8Image: stb's decoded pixels (a
// byte a channel), about as much again for a compressed format's inflated stream (PNG: a filter byte a row more),
// and the 3-byte RGB copy kept.
std::int64_t decoded_image_bytes(std::int64_t width, std::int64_t height, int channels);

// Reads `file` (any stb_image format; grey or RGBA become RGB, alpha dropped) in BMP file order. ImageError when
// the file cannot be read or decoded, or has more than `max_pixels` pixels (checked from the header, before the
// pixels are decoded). `check_decoded`, when given, is called with the header's width, height and channels before
// anything of that size is allocated: a caller refuses a picture whose decoding would not fit its memory.
Rgb8Image read_rgb8(const std::filesystem::path& file, std::int64_t max_pixels,
                    const std::function<void(std::int64_t width, std::int64_t height, int channels)>&
                        check_decoded = {});

// Writes `rgb` (3 bytes per pixel, `width` x `height`, rows in the order given: the first row is the top of the
// picture) as a PNG: to `<file>.tmp`, then renamed over `file` (a reader never sees a truncated picture).
// Creates missing folders. std::runtime_error naming the file on failure.
void write_png_atomically(const std::filesystem::path& file, std::int64_t width, std::int64_t height,
                          const std::vector<std::uint8_t>& rgb_top_down);

}  // namespace kbrain::image
