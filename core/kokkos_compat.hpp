#pragma once
// The one place where Kokkos version differences live (kbrain builds against Kokkos 3.4 ... 5.x).
//  - math functions: Kokkos::Experimental::exp (3.x) vs Kokkos::exp (4.0+)
//  - concurrency(): static in 3.x, member in 4.x (calling it on an instance works for both)
//  - 64-bit integer atomics: 3.x implements *signed* 64-bit atomic adds on CUDA as a compare-and-swap loop
//    (atomic_add_i64 / atomic_increment_i64 go through unsigned long long, which maps to the native instruction)
//  - light_weight(policy): Kokkos::Experimental::require with the HintLightWeight work-item property
#include <Kokkos_Core.hpp>

#ifndef KOKKOS_VERSION
#error "kbrain: Kokkos_Core.hpp did not define KOKKOS_VERSION"
#endif

// nvcc only warns when device code calls a __host__ function (diagnostics 20011, 20014), and the kernel then
// silently does nothing at run time. Every kernel header includes this one: make both errors, so that the CUDA
// compile in CI catches them.
#if defined(__NVCC__)
#pragma nv_diag_error 20011
#pragma nv_diag_error 20014
#endif

namespace kbrain::kx {

#if KOKKOS_VERSION >= 40000
using Kokkos::exp;
using Kokkos::sqrt;
using Kokkos::fabs;
using Kokkos::log;
using Kokkos::cos;
using Kokkos::expm1;
using Kokkos::pow;
#else
using Kokkos::Experimental::exp;
using Kokkos::Experimental::sqrt;
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::log;
using Kokkos::Experimental::cos;
using Kokkos::Experimental::expm1;
using Kokkos::Experimental::pow;
#endif

template <class ExecSpace>
int concurrency() {
  return static_cast<int>(ExecSpace().concurrency());
}

inline constexpr int kokkos_version = KOKKOS_VERSION;

// 64-bit signed atomic add / increment through unsigned long long (two's-complement addition is the same bits), so
// that Kokkos 3.x on CUDA uses atomicAdd instead of a CAS loop, which collapses when many threads hit one address.
KOKKOS_INLINE_FUNCTION void atomic_add_i64(long long* p, long long v) {
  Kokkos::atomic_add(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
KOKKOS_INLINE_FUNCTION void atomic_add_i64(long* p, long v) {
  static_assert(sizeof(long) == sizeof(unsigned long long), "64-bit long expected");
  Kokkos::atomic_add(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
KOKKOS_INLINE_FUNCTION long long atomic_increment_i64(long long* p) {
  return static_cast<long long>(Kokkos::atomic_fetch_add(reinterpret_cast<unsigned long long*>(p), 1ULL));
}
KOKKOS_INLINE_FUNCTION long atomic_increment_i64(long* p) {
  return static_cast<long>(Kokkos::atomic_fetch_add(reinterpret_cast<unsigned long long*>(p), 1ULL));
}

// A policy whose functor reaches the kernel as its parameter (up to 4 KiB) instead of through constant memory:
// on CUDA a constant-memory launch (Kokkos' default above 512 bytes) first waits for the previous such launch to
// finish, a host round trip per launch, and cannot be recorded into a graph.
template <class Policy>
auto light_weight(const Policy& policy) {
  return Kokkos::Experimental::require(policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight);
}

}  // namespace kbrain::kx

namespace kbrain::kx {

// The most OpenMP threads Kokkos can run: its OpenMP backend keeps a fixed table of thread slots
// (OpenMPExec::MAX_THREAD_COUNT in 3.x and 4.x); more threads overrun it.
inline constexpr int kMaxHostThreads = 512;

// Kokkos::initialize with a thread count / device id (-1 = Kokkos' default): InitArguments (3.x) vs
// InitializationSettings (4.0+).
inline void initialize(int num_threads, int device_id) {
#if KOKKOS_VERSION >= 40000
  Kokkos::InitializationSettings s;
  if (num_threads > 0) s.set_num_threads(num_threads);
  if (device_id >= 0) s.set_device_id(device_id);
  Kokkos::initialize(s);
#else
  Kokkos::InitArguments a;
  a.num_threads = num_threads;
  a.device_id = device_id;
  Kokkos::initialize(a);
#endif
}

}  // namespace kbrain::kx
