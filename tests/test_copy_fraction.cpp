// bench/copy_fraction.hpp: the copy-bandwidth fraction table kbrain_bench prints after its runs.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "bench/copy_fraction.hpp"

using kbrain::bench::CopyRate;
using kbrain::bench::StepRate;

TEST_SUITE("report") {
  TEST_CASE("copy fraction: each step against the fastest copy of its own backend") {
    CHECK(kbrain::bench::backend_of("io_step/cuda/double/1024x1024/mesh/real_time") == "cuda");
    CHECK(kbrain::bench::backend_of("io_step_generated/openmp/float/uniform/65536/100/fused") == "openmp");
    CHECK(kbrain::bench::backend_of("noslash").empty());

    const std::vector<StepRate> steps = {{"io_step/cuda/double/1024x1024/mesh/real_time", 2.6e12},
                                         {"io_step/openmp/float/1024x1024/mesh/real_time", 30e9},
                                         {"io_step/serial/float/256x256/mesh/real_time", 5e9}};
    const std::vector<CopyRate> copies = {{"cuda", "kernel", 1.6e12},
                                          {"cuda", "deep_copy", 3.8e12},
                                          {"openmp", "kernel", 60e9},
                                          {"openmp", "deep_copy", 50e9}};
    const auto rows = kbrain::bench::copy_fractions(steps, copies);
    REQUIRE(rows.size() == 2);  // no serial copy rate: no serial row
    CHECK(rows[0].copy_method == "deep_copy");
    CHECK(rows[0].fraction == doctest::Approx(2.6 / 3.8));
    CHECK(rows[1].copy_method == "kernel");
    CHECK(rows[1].fraction == doctest::Approx(0.5));

    const std::string table = kbrain::bench::format_fractions(rows);
    CHECK(table.find("| io_step/cuda/double/1024x1024/mesh/real_time | 2600.0 | 3800.0 (deep_copy) | 68 % |") !=
          std::string::npos);
    CHECK(table.find("| 30.0 | 60.0 (kernel) | 50 % |") != std::string::npos);
  }
}
