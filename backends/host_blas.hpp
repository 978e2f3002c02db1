#pragma once
// The host BLAS behind Kokkos Kernels' host calls. OpenBLAS keeps its own thread pool: a Serial run must use one
// thread (the study's single-threaded baseline), an OpenMP run as many as Kokkos has. Other BLAS libraries are left
// as they are (the name says which one ran).
#include <string>

namespace kbrain {

// Sets the host BLAS to `threads` threads where the library allows it (OpenBLAS); returns whether it did. Workers it
// starts may use every CPU of the process, even when the calling thread is bound to one (OMP_PROC_BIND).
bool set_host_blas_threads(int threads);
// The host BLAS's thread count (OpenBLAS), or 0 where the library does not say.
int host_blas_threads();
// "OpenBLAS 0.3.21 ..." (its configuration string) or "reference BLAS".
std::string host_blas_name();

}  // namespace kbrain
