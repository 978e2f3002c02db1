#include "experiments/program/mpi_env.hpp"

#include <cstdlib>
#include <initializer_list>

#ifdef KBRAIN_HAVE_MPI
#include <mpi.h>
#endif

namespace kbrain {

namespace {
#ifdef KBRAIN_HAVE_MPI
bool g_active = false;  // MPI_Init_thread was called by mpi_start
#endif
const char* env(const char* name) { return std::getenv(name); }
}  // namespace

int mpi_local_rank_from_env() {
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMI_LOCAL_RANK"})
    if (const char* s = env(v)) return std::atoi(s);
  return -1;
}

#ifdef KBRAIN_HAVE_MPI
bool mpi_start(int* argc, char*** argv) {
  const bool launched = env("OMPI_COMM_WORLD_SIZE") || env("PMI_SIZE") || env("PMIX_RANK") || env("PMI_RANK") ||
                        env("MPI_LOCALRANKID");
  if (!launched) return false;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  g_active = true;
  return true;
}
bool mpi_active() { return g_active; }
int mpi_world_rank() {
  int r = 0;
  if (g_active) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int mpi_world_size() {
  int s = 1;
  if (g_active) MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}
void mpi_finish() {
  if (g_active) MPI_Finalize();
  g_active = false;
}
void mpi_abort(int code) {
  if (g_active) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}
#else
bool mpi_start(int*, char***) { return false; }
bool mpi_active() { return false; }
int mpi_world_rank() { return 0; }
int mpi_world_size() { return 1; }
void mpi_finish() {}
void mpi_abort(int code) { std::exit(code); }
#endif

}  // namespace kbrain
