#pragma once
// MPI start-up of the `kbrain` executable (docs/mpi.md). In a build with KBRAIN_ENABLE_MPI, MPI is initialised only
// when the process was started by an MPI launcher (mpirun/mpiexec/srun set their environment variables), so a
// plain `kbrain run` stays a single-process run. Without KBRAIN_ENABLE_MPI every function is a no-op.
namespace kbrain {

// Initialises MPI if launched by mpirun; returns whether MPI is active.
bool mpi_start(int* argc, char*** argv);
bool mpi_active();
int mpi_world_rank();  // 0 when MPI is not active
int mpi_world_size();  // 1 when MPI is not active
// The node-local rank from the launcher's environment (-1 if none): one GPU per rank.
int mpi_local_rank_from_env();
void mpi_finish();
[[noreturn]] void mpi_abort(int code);

}  // namespace kbrain
