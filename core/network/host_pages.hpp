#pragma once
// Network generation on a host backend writes arrays of hundreds of megabytes that were never touched: each 4 KiB
// page faults on its first write, and the kernel takes those faults one at a time per process, so they cost a
// single thread as much as sixteen. Where transparent huge pages are granted on request (Linux, "madvise"), asking
// for them makes a fault cover 2 MiB. A hint: where it is refused or unknown, nothing changes but the time.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <Kokkos_Core.hpp>

namespace kbrain::netgen {

// Asks for huge pages over the whole 2 MiB pages inside [data, data + bytes).
inline void advise_huge_pages(void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t(1) << 21;
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t begin = (at + huge - 1) & ~(huge - 1), end = (at + bytes) & ~(huge - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

// The same for a view in host memory not yet written (allocated WithoutInitializing); other memory spaces: nothing.
template <class View>
void advise_huge_pages(const View& v) {
  if constexpr (std::is_same<typename View::memory_space, Kokkos::HostSpace>::value)
    advise_huge_pages(static_cast<void*>(v.data()), v.span() * sizeof(typename View::value_type));
}

}  // namespace kbrain::netgen
