// Image files (galbraith_som's input.image): any format stb_image reads, at most 2^16 pixels (checked from the
// header before decoding). Its error: image::ImageError.
#include <cstddef>
#include <cstdint>

#include "core/image/image_file.hpp"
#include "fuzz_expect.hpp"
#include "fuzz_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& file = kbrain::fuzz::input_file(data, size);
  kbrain::fuzz::expect_only<kbrain::image::ImageError>([&] {
    const auto img = kbrain::image::read_rgb8(file, std::int64_t{1} << 16);
    if (img.rgb.size() != static_cast<std::size_t>(img.pixels() * 3)) __builtin_trap();  // 3 bytes a pixel
  });
  return 0;
}
