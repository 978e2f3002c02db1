// Input files whose size is known only once they are opened (a conductance matrix, a picture) are checked against
// the memory available before the reader holds what they describe: the refusal names the file and the bytes.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/config/experiment_config.hpp"
#include "core/image/image_file.hpp"
#include "core/network/gap_network.hpp"
#include "models/olive/matrix_file_memory.hpp"
#include "models/runtime/memory_statement.hpp"
#include "tests/test_helpers.hpp"

namespace {

using kbrain::test::contains;
using kbrain::test::TempDir;

// A dense n x n matrix, every junction 1 (none on the diagonal): n (n - 1) junctions.
std::string dense_matrix(int n) {
  std::string text;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) text += std::string(r == c ? "0" : "1") + (c + 1 < n ? " " : "\n");
  return text;
}

// The 54-byte header of a 24-bit BMP of width x height, without its pixels.
std::string bmp_header(std::uint32_t width, std::uint32_t height) {
  std::string h;
  auto put = [&](std::uint32_t v, int bytes) {
    for (int b = 0; b < bytes; ++b) h += char((v >> (8 * b)) & 0xff);
  };
  h += "BM";
  put(54 + 3 * width * height, 4);  // the size the file claims
  put(0, 4);
  put(54, 4);   // the pixels' offset
  put(40, 4);   // BITMAPINFOHEADER
  put(width, 4);
  put(height, 4);
  put(1, 2);    // planes
  put(24, 2);   // bits a pixel
  for (int k = 0; k < 6; ++k) put(0, 4);  // no compression, the rest unset
  return h;
}

}  // namespace

TEST_SUITE("memory_statement") {
  TEST_CASE("a conductance matrix is checked before the reader holds its side and each larger room") {
    TempDir tmp("matrix_memory");
    const auto file = tmp.write("m.txt", dense_matrix(3));
    std::vector<std::pair<std::int64_t, std::int64_t>> asked;
    const kbrain::GapNetwork net =
        kbrain::read_conductance_matrix(file, 0, [&](std::int64_t cells, std::int64_t junctions) {
          asked.emplace_back(cells, junctions);
        });
    CHECK(net.junctions() == 6);
    // the side first, then room for the junctions (at most n (n - 1))
    CHECK(asked == std::vector<std::pair<std::int64_t, std::int64_t>>{{3, 0}, {3, 6}});
    // a refusal of the side stops the reader before it reads a junction
    CHECK_THROWS_WITH_AS(kbrain::read_conductance_matrix(file, 0,
                                                         [](std::int64_t, std::int64_t) {
                                                           throw kbrain::ConfigError("refused");
                                                         }),
                         "refused", kbrain::ConfigError);
  }

  TEST_CASE("a conductance matrix beyond the memory available is refused, naming the file and the bytes") {
    TempDir tmp("matrix_memory");
    const auto file = tmp.write("dense.txt", dense_matrix(100));  // 9900 junctions
    auto read_with = [&](double available) {
      return kbrain::read_conductance_matrix(file, 0, [&](std::int64_t cells, std::int64_t junctions) {
        kbrain::olive::require_matrix_fits("x.toml", file.string(), cells, junctions, 0, available);
      });
    };
    CHECK(read_with(1e9).junctions() == 9900);
    CHECK(read_with(0).junctions() == 9900);  // unknown: not checked
    // 100 kB: its side fits (4208 bytes), room for its first 4096 junctions (118896 bytes) does not
    try {
      read_with(100000);
      FAIL("not refused");
    } catch (const kbrain::NotEnoughMemory& e) {
      CHECK(std::string(e.what()) ==
            "x.toml: [network]: network.file: " + file.string() +
                ": the 100 x 100 conductance matrix read into room for 4096 junctions (the entries read, their CSR, "
                "g_CaL) needs 0.00 GiB (118896 bytes) of host memory but 0.00 GiB (100000 bytes) are available; at "
                "most 3421 junctions fit beside 100 cells");
    }
    // 1 kB: not even its side
    try {
      read_with(1000);
      FAIL("not refused");
    } catch (const kbrain::NotEnoughMemory& e) {
      CHECK(std::string(e.what()) ==
            "x.toml: [network]: network.file: " + file.string() +
                ": the 100 x 100 conductance matrix (its CSR offsets, g_CaL) needs 0.00 GiB (4208 bytes) of host "
                "memory but 0.00 GiB (1000 bytes) are available; at most 23 cells fit");
    }
    // the cells' state on a CPU backend counts per cell
    CHECK(kbrain::olive::matrix_read_host_bytes(100, 0, 128) == doctest::Approx(4208 + 12800));
  }

  TEST_CASE("a picture's decoded size is checked from its header, before it is decoded") {
    TempDir tmp("image_memory");
    // a header claiming 40000 x 40000 pixels and no pixels: the size is asked before the file is found short
    const auto file = tmp.write("huge.bmp", bmp_header(40000, 40000));
    std::int64_t width = 0, height = 0;
    int channels = 0;
    CHECK_THROWS_WITH_AS(kbrain::image::read_rgb8(file, 2147483647,
                                                  [&](std::int64_t w, std::int64_t h, int c) {
                                                    width = w, height = h, channels = c;
                                                    kbrain::require_host_bytes(
                                                        double(kbrain::image::decoded_image_bytes(w, h, c)), 4e9,
                                                        "som.toml", "input.image: huge.bmp: the picture");
                                                  }),
                         doctest::Contains("som.toml: input.image: huge.bmp: the picture needs 13.41 GiB "
                                           "(14400040000 bytes) of host memory but 3.73 GiB (4000000000 bytes)"),
                         kbrain::NotEnoughMemory);
    CHECK(width == 40000);
    CHECK(height == 40000);
    CHECK(channels == 3);
    // stb's pixels, as much again while inflating, a byte a row, and the RGB copy kept
    CHECK(kbrain::image::decoded_image_bytes(10, 20, 4) == 2 * 200 * 4 + 20 + 3 * 200);
  }
}
