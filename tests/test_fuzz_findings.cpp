// What the fuzz targets (tests/fuzz) found, kept as tests, and the check that they fuzz every model's tables. The
// findings matter most in the sanitizer build (scripts/sanitize.sh), where undefined behaviour fails the test.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/image/image_file.hpp"
#include "models/registry.hpp"
#include "tests/fuzz/fuzz_catalog.hpp"

namespace {

// The ImageError message of reading `bytes` as the image file `name` ("" when it reads).
std::string image_error_of(const std::string& name, const std::string& bytes) {
  const auto file = std::filesystem::temp_directory_path() / name;
  std::ofstream(file, std::ios::binary) << bytes;
  std::string message;
  try {
    kbrain::image::read_rgb8(file, 16);
  } catch (const kbrain::image::ImageError& e) {
    message = e.what();
  }
  std::filesystem::remove(file);
  return message;
}

}  // namespace

TEST_SUITE("config") {
  // The fuzz build's list of model schemas is written out (it has no Kokkos for models/registry.hpp): a model
  // missing from it would not be fuzzed.
  TEST_CASE("the fuzz targets' schema list has every model of the registry") {
    CHECK(kbrain::fuzz::schema_catalog().kinds() == kbrain::model_catalog().kinds());
  }

  // toml++ 3.3.0 reached __builtin_unreachable() for U+00A7 or U+032A where it looks for whitespace, and broke its
  // own preconditions on a table header that cannot start a key and on deep "[[[" nesting (cmake/KbrainTomlpp.cmake
  // patches both): now syntax errors.
  TEST_CASE("inputs that broke toml++ 3.3.0 are a ConfigError, not undefined behaviour") {
    const std::string deep = "name =" + std::string(19, '[') + "}" + std::string(42, '[') + "_" +
                             std::string(20, '[') + "\"\n";
    for (const std::string& text : std::vector<std::string>{"name = \"t\"\n\xc2\xa7 = 1\n", "\xcc\xaa",
                                                             "name = \"a\" \xef\xb0\x80\n", "[|x]\n", "[[[1]]]\n",
                                                             "[[=\n", deep}) {
      CAPTURE(text);
      CHECK_THROWS_AS(kbrain::parse_model_experiment(text, "fuzz.toml"), kbrain::ConfigError);
    }
  }

  // stb 2022-09-08 converted a 16-bit PGM to RGB with its 8-bit routine and read past the buffer (wrong pixels, or
  // a crash): read_rgb8 now asks for the file's own channels and makes them RGB itself.
  TEST_CASE("a 16-bit PGM reads as RGB with the high bytes") {
    const auto file = std::filesystem::temp_directory_path() / "kbrain_fuzz_finding_16bit.pgm";
    std::ofstream(file, std::ios::binary) << std::string("P5\n2 1\n65535\n\x00\x00\xff\xff", 17);
    const kbrain::image::Rgb8Image img = kbrain::image::read_rgb8(file, 16);
    std::filesystem::remove(file);
    CHECK(img.width == 2);
    CHECK(img.height == 1);
    CHECK(img.rgb == std::vector<std::uint8_t>{0, 0, 0, 255, 255, 255});
  }

  // stb reserved a PNG data chunk's declared length (here 1 GiB, 2 GiB after rounding) before reading it: a file of
  // 45 bytes asked for gigabytes. read_rgb8 now refuses a chunk longer than the rest of the file.
  TEST_CASE("a PNG chunk longer than the file is refused before stb reserves it") {
    const std::string ihdr("\0\0\0\x0dIHDR\0\0\0\x02\0\0\0\x02\x08\x02\0\0\0\0\0\0\0", 25);
    const std::string message = image_error_of("kbrain_fuzz_finding_idat.png", std::string("\x89PNG\r\n\x1a\n", 8) +
                                                ihdr + std::string("\x40\0\0\0IDAT\0\0\0\0", 12));
    CHECK(message.find("truncated PNG") != std::string::npos);
  }

  // stb 2022-09-08 built a JPEG Huffman table from counts adding up to more than 256 codes and wrote past the table
  // (heap corruption in the distribution's library too). read_rgb8 checks the tables first.
  TEST_CASE("a JPEG Huffman table of more than 256 codes is refused before stb builds it") {
    const std::string message = image_error_of(
        "kbrain_fuzz_finding_dht.jpg",
        std::string("\xff\xff\xd8\xff\xff\xc4\xb8\x00\x00\x90\x00\xff\xd8\xff\xff\xc4\xfa\xff\xff", 19));
    CHECK(message.find("Huffman table") != std::string::npos);
  }
}
