#pragma once
// A backend's memory bandwidth, measured two ways on its own execution space: Kokkos::deep_copy (cudaMemcpy /
// memcpy; a host deep_copy may use every OpenMP thread) and a Kokkos copy kernel, each fenced. Bytes moved = read +
// write. The yardstick of "achieved GB/s" in compare (% of copy) and of bench/'s copy fractions.
#include <algorithm>
#include <chrono>
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace kbrain {

template <class Backend>
struct CopyBuffers {
  using Exec = typename Backend::execution_space;
  Kokkos::View<double*, typename Backend::memory_space> a, b;

  explicit CopyBuffers(std::int64_t bytes) : a("copy_a", bytes / sizeof(double)), b("copy_b", bytes / sizeof(double)) {
    Kokkos::deep_copy(a, 1.0);
  }
  double bytes_moved() const { return 2.0 * double(a.extent(0)) * sizeof(double); }  // read + write
  void deep_copy() const {
    Kokkos::deep_copy(Exec(), b, a);
    Exec().fence();
  }
  void kernel_copy() const {
    const auto src = a;
    const auto dst = b;
    Kokkos::parallel_for("kbrain::copy", Kokkos::RangePolicy<Exec>(0, std::int64_t(src.extent(0))),
                         KOKKOS_LAMBDA(const std::int64_t i) { dst(i) = src(i); });
    Exec().fence();
  }
};

// The best of `repeats` copies of `bytes` each way: {deep_copy, kernel} bytes per second.
template <class Backend>
std::pair<double, double> copy_bytes_per_second(std::int64_t bytes, int repeats) {
  const CopyBuffers<Backend> buffers(bytes);
  auto best_of = [&](bool kernel) {
    double best = 0;
    for (int r = 0; r < repeats; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      kernel ? buffers.kernel_copy() : buffers.deep_copy();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (s > 0) best = std::max(best, buffers.bytes_moved() / s);
    }
    return best;
  };
  const double deep = best_of(false);
  return {deep, best_of(true)};
}

}  // namespace kbrain
