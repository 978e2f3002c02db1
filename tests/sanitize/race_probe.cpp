// A deliberate data race in a Kokkos kernel on the OpenMP backend, for scripts/race_check.sh: ThreadSanitizer (with
// Archer) must report it, else the race check's detector does not see Kokkos' OpenMP kernels and its passing proves
// nothing. Built only in a KBRAIN_SANITIZE=thread tree with OpenMP (tests/CMakeLists.txt); no ctest entry runs it.
#include <cstdio>

#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  Kokkos::View<long, Kokkos::HostSpace> sum("sum");
  // Every thread adds into the one element without an atomic: the race the probe exists for.
  Kokkos::parallel_for("race_probe", Kokkos::RangePolicy<Kokkos::OpenMP>(0, 100000), [=](const int i) { sum() += i; });
  Kokkos::fence();
  std::printf("%ld\n", sum());
  return 0;
}
