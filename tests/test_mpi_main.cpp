// doctest main of the MPI suite (run under mpirun -n K, see tests/CMakeLists.txt): MPI first, then Kokkos.
// Every rank runs the same test cases (they are collective); only rank 0 reports.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>
#include <mpi.h>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, failed = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    doctest::Context ctx(argc, argv);
    if (rank != 0) ctx.setOption("out", "/dev/null");
    failed = ctx.run();
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
