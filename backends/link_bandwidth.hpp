#pragma once
// The host-to-device copy rate of a backend, measured once per process with a 256 MiB copy from its staging
// (page-locked on GPUs) memory: the link figure out-of-core runs report their transfer time against. Host backends
// have no link (0).
#include <chrono>
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

namespace kbrain {

template <class Backend>
double host_to_device_bytes_per_s() {
  if constexpr (!Backend::is_gpu) {
    return 0;
  } else {
    static const double rate = [] {
      using Exec = typename Backend::execution_space;
      const std::int64_t n = std::int64_t(256) << 20;
      auto no_init = [](const char* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };
      Kokkos::View<std::uint8_t*, typename Backend::staging_memory_space> src(no_init("kbrain_link_src"), n);
      Kokkos::View<std::uint8_t*, typename Backend::memory_space> dst(no_init("kbrain_link_dst"), n);
      Kokkos::deep_copy(Exec(), dst, src);  // first touch of both sides
      Exec().fence();
      const auto t0 = std::chrono::steady_clock::now();
      Kokkos::deep_copy(Exec(), dst, src);
      Exec().fence();
      return double(n) / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }();
    return rate;
  }
}

}  // namespace kbrain
