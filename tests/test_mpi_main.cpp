// doctest main of the MPI suite (run under mpirun -n K, see tests/CMakeLists.txt): MPI first, then Kokkos.
// Every rank runs the same test cases (they are collective); only rank 0 reports.
// --backend=NAME runs one backend's test cases (tests/backend_filter.hpp); queries start neither MPI nor Kokkos.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include "tests/backend_filter.hpp"

int main(int argc, char** argv) {
  if (kbrain::test::query_only(argc, argv)) {
    doctest::Context ctx(argc, argv);
    if (const int rc = kbrain::test::apply_backend_options(argc, argv, ctx); rc >= 0) return rc;
    return ctx.run();
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, failed = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    doctest::Context ctx(argc, argv);
    if (rank != 0) ctx.setOption("out", "/dev/null");
    failed = kbrain::test::apply_backend_options(argc, argv, ctx);
    failed = failed >= 0 ? failed : ctx.run();
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
