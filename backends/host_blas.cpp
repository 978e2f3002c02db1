#include "backends/host_blas.hpp"

#include <dlfcn.h>

namespace kbrain {

namespace {
// Looked up at run time, so that any BLAS links and OpenBLAS is recognised when it is the one loaded.
template <class F>
F openblas_symbol(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}
}  // namespace

bool set_host_blas_threads(int threads) {
  auto set = openblas_symbol<void (*)(int)>("openblas_set_num_threads");
  if (!set) return false;
  set(threads < 1 ? 1 : threads);
  return true;
}

std::string host_blas_name() {
  auto config = openblas_symbol<char* (*)()>("openblas_get_config");
  if (config) return config();  // "OpenBLAS 0.3.21 ... MAX_THREADS=64"
  return "reference BLAS";
}

}  // namespace kbrain
