#include "backends/host_blas.hpp"

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

namespace kbrain {

namespace {
// Looked up at run time, so that any BLAS links and OpenBLAS is recognised when it is the one loaded.
template <class F>
F openblas_symbol(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

// OpenBLAS starts the workers it lacks inside openblas_set_num_threads, and a new thread inherits the calling
// thread's CPU mask. Under OMP_PROC_BIND the OpenMP backend has bound this thread to one CPU, so every BLAS worker
// would share that CPU. The mask is widened to every CPU the process may use while the workers start, then restored.
class WidenedAffinity {
 public:
  WidenedAffinity() {
    CPU_ZERO(&saved_);
    if (sched_getaffinity(0, sizeof(saved_), &saved_) != 0) return;
    cpu_set_t all;
    CPU_ZERO(&all);
    const long cpus = sysconf(_SC_NPROCESSORS_CONF);
    for (long c = 0; c < cpus && c < CPU_SETSIZE; ++c) CPU_SET(static_cast<int>(c), &all);
    widened_ = sched_setaffinity(0, sizeof(all), &all) == 0;  // the kernel keeps it inside the process's cpuset
  }
  ~WidenedAffinity() {
    if (widened_) sched_setaffinity(0, sizeof(saved_), &saved_);
  }
  WidenedAffinity(const WidenedAffinity&) = delete;
  WidenedAffinity& operator=(const WidenedAffinity&) = delete;

 private:
  cpu_set_t saved_;
  bool widened_ = false;
};
}  // namespace

bool set_host_blas_threads(int threads) {
  auto set = openblas_symbol<void (*)(int)>("openblas_set_num_threads");
  if (!set) return false;
  const WidenedAffinity widened;
  set(threads < 1 ? 1 : threads);
  return true;
}

int host_blas_threads() {
  auto get = openblas_symbol<int (*)()>("openblas_get_num_threads");
  return get ? get() : 0;
}

std::string host_blas_name() {
  auto config = openblas_symbol<char* (*)()>("openblas_get_config");
  if (config) return config();  // "OpenBLAS 0.3.21 ... MAX_THREADS=64"
  return "reference BLAS";
}

}  // namespace kbrain
