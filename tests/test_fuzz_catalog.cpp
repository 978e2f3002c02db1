// The fuzz build's list of model schemas (tests/fuzz/fuzz_catalog.hpp, written out because the fuzz build has no
// Kokkos for models/registry.hpp) must name the registry's kinds: a model missing there is not fuzzed.
#include <doctest/doctest.h>

#include "models/registry.hpp"
#include "tests/fuzz/fuzz_catalog.hpp"

TEST_SUITE("config") {
  TEST_CASE("the fuzz targets' schema list has every model of the registry") {
    CHECK(kbrain::fuzz::schema_catalog().kinds() == kbrain::model_catalog().kinds());
  }
}
