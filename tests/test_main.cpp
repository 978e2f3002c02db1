// doctest main: Kokkos is initialised once for the whole test run (every enabled backend).
// --backend=NAME runs one backend's test cases (tests/backend_filter.hpp); queries start no Kokkos.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include "tests/backend_filter.hpp"

int main(int argc, char** argv) {
  doctest::Context ctx(argc, argv);
  if (const int rc = kbrain::test::apply_backend_options(argc, argv, ctx); rc >= 0) return rc;
  if (kbrain::test::query_only(argc, argv)) return ctx.run();
  Kokkos::ScopeGuard kokkos(argc, argv);
  return ctx.run();
}
