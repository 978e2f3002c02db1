// Every model states the memory a run will take before anything is allocated (models/runtime/memory_statement.hpp),
// and a plan refuses, before building it, a network whose host arrays would not fit.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "core/config/experiment_config.hpp"
#include "models/registry.hpp"
#include "models/runtime/memory_statement.hpp"
#include "models/runtime/run_dispatch.hpp"
#include "tests/test_helpers.hpp"

namespace {

using kbrain::test::contains;

// The statement of a run of `file` (of the catalogue) on the serial backend in double.
kbrain::MemoryStatement statement_of(const std::string& file) {
  const kbrain::ExperimentConfig cfg =
      kbrain::load_model_experiment(std::filesystem::path(KBRAIN_SOURCE_DIR) / "experiments" / file);
  kbrain::MemoryStatement m;
  kbrain::with_model(cfg.model, [&](auto tag) {
    using Model = typename decltype(tag)::type;
    const typename Model::Plan plan = Model::make_plan(cfg, kbrain::PlanRequest{});
    m = kbrain::memory_on<Model>(plan, "serial", kbrain::Precision::Double, kbrain::RunRequest{});
  });
  return m;
}

}  // namespace

TEST_SUITE("memory_statement") {
  TEST_CASE("every model states what its run allocates") {
    // one experiment per model; a model without a statement would state nothing
    for (const char* file : {"io_all2all10.toml", "coba.toml", "wang2012.toml", "neofytou_t6_1_mxm.toml",
                             "galbraith_regression.toml", "galbraith_som_small.toml", "galbraith_decoder_small.toml"}) {
      CAPTURE(file);
      CHECK(statement_of(file).device_bytes > 0);
    }
    // the product lives in host memory on CPU backends: its A, B and C are host bytes
    CHECK(statement_of("galbraith_gemm_small.toml").host_bytes > 0);
  }

  TEST_CASE("a refusal names the bytes needed, the bytes available and what fits") {
    CHECK_NOTHROW(kbrain::require_host_bytes(100, 100, "x.toml", "the thing"));
    CHECK_NOTHROW(kbrain::require_host_bytes(1e18, 0, "x.toml", "the thing"));  // unknown: not checked
    try {
      kbrain::require_host_bytes(3221225472.0, 1073741824.0, "x.toml", "[network]: the thing", "at most 7 cells fit");
      FAIL("not refused");
    } catch (const kbrain::ConfigError& e) {
      CHECK(std::string(e.what()) ==
            "x.toml: [network]: the thing needs 3.00 GiB (3221225472 bytes) of host memory but 1.00 GiB (1073741824 "
            "bytes) are available; at most 7 cells fit");
    }
    const auto bytes = [](std::int64_t n) { return 10.0 * double(n); };
    CHECK(kbrain::largest_fitting(1000, 105, bytes) == 10);
    CHECK(kbrain::largest_fitting(1000, 1e9, bytes) == 1000);
    CHECK(kbrain::largest_fitting(1000, 5, bytes) == 0);
  }

  TEST_CASE("an IO network too large for the host is refused before it is built") {
    // 3 million cells all to all: 9e12 junctions, tens of terabytes of CSR (nothing is allocated)
    const kbrain::ExperimentConfig cfg = kbrain::parse_model_experiment(
        "name = \"big\"\n[model]\nkind = \"io\"\n[simulation]\nsteps = 10\n"
        "[network]\ntype = \"all_to_all\"\ncells = 3000000\n",
        "big.toml");
    kbrain::with_model(cfg.model, [&](auto tag) {
      using Model = typename decltype(tag)::type;
      try {
        Model::make_plan(cfg, kbrain::PlanRequest{});
        FAIL("not refused");
      } catch (const kbrain::ConfigError& e) {
        const std::string m = e.what();
        CHECK(contains(m, "big.toml: [network]: the all-to-all network of 3000000 cells"));
        CHECK(contains(m, "of host memory but"));
        CHECK(contains(m, "cells fit"));
      }
    });
  }
}
