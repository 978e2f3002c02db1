#pragma once
// Copies of single values from global memory into team scratch that do not pass through registers: on CUDA
// sm_80 and later `cp.async` (the copy proceeds while the thread goes on; async_copy_wait() waits for the
// thread's own copies, after which the thread, and only it, may read them). Elsewhere a plain assignment, and
// async_copy_wait() does nothing. Used to issue all of a cell's state loads at once without holding them in
// registers (io_step_staged.hpp).
#include <Kokkos_Core.hpp>

namespace kbrain {

template <class T>
KOKKOS_FORCEINLINE_FUNCTION void async_copy(T* scratch_dst, const T* global_src) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(scratch_dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(global_src), "n"(sizeof(T)) : "memory");
#else
  *scratch_dst = *global_src;
#endif
}

KOKKOS_FORCEINLINE_FUNCTION void async_copy_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

}  // namespace kbrain
