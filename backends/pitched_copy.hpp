#pragma once
// Copies a block of `rows` x `cols` elements between two row-major arrays whose rows lie `dst_pitch` and
// `src_pitch` elements apart, queued on an execution-space instance: the sub-block of a host matrix goes to a
// contiguous device buffer (or back) without a packing pass. On CUDA one strided DMA transfer on the instance's
// stream (asynchronous when the host side is page-locked); on host backends a copy per row on the instance.
// Either pointer may be host or device memory of the backend; fence the instance before reading the destination.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

namespace kbrain {

template <class Exec>
struct PitchedCopy {
  template <class T>
  static void run(const Exec& exec, T* dst, std::int64_t dst_pitch, const T* src, std::int64_t src_pitch,
                  std::int64_t rows, std::int64_t cols) {
    if (rows <= 0 || cols <= 0) return;
    const std::size_t bytes = std::size_t(cols) * sizeof(T);
    Kokkos::parallel_for(
        "kbrain::pitched_copy", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, rows),
        [=](std::int64_t r) { std::memcpy(dst + r * dst_pitch, src + r * src_pitch, bytes); });
  }
};

#ifdef KOKKOS_ENABLE_CUDA
template <>
struct PitchedCopy<Kokkos::Cuda> {
  template <class T>
  static void run(const Kokkos::Cuda& exec, T* dst, std::int64_t dst_pitch, const T* src, std::int64_t src_pitch,
                  std::int64_t rows, std::int64_t cols) {
    if (rows <= 0 || cols <= 0) return;
    const cudaError_t e = cudaMemcpy2DAsync(dst, std::size_t(dst_pitch) * sizeof(T), src, std::size_t(src_pitch) * sizeof(T),
                                            std::size_t(cols) * sizeof(T), std::size_t(rows), cudaMemcpyDefault,
                                            exec.cuda_stream());
    if (e != cudaSuccess) throw std::runtime_error(std::string("pitched copy failed: ") + cudaGetErrorString(e));
  }
};
#endif

}  // namespace kbrain
