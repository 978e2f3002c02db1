// doctest main: Kokkos is initialised once for the whole test run (every enabled backend).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
