#pragma once
// Counter-based random numbers (Random123 Philox4x32-10): a value is a pure function of (seed, stream, counter),
// so every backend — and any future partitioning of cells across ranks — draws exactly the same numbers.
// Usable in host code and inside Kokkos kernels (CUDA device code).
#include <cstdint>

#include <Random123/philox.h>

#if defined(__CUDACC__)
#define KBRAIN_HOST_DEVICE __host__ __device__
#else
#define KBRAIN_HOST_DEVICE
#endif

namespace kbrain {

// 64 random bits for (seed, stream, counter); e.g. stream = cell id, counter = draw index.
KBRAIN_HOST_DEVICE inline std::uint64_t counter_random_u64(std::uint64_t seed, std::uint64_t stream,
                                                           std::uint64_t counter) {
  r123::Philox4x32 rng;
  r123::Philox4x32::ctr_type ctr = {{static_cast<std::uint32_t>(counter), static_cast<std::uint32_t>(counter >> 32),
                                     static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)}};
  r123::Philox4x32::key_type key = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
  const auto out = rng(ctr, key);
  return (static_cast<std::uint64_t>(out[1]) << 32) | out[0];
}

// Uniform double in [0, 1) with 53 random bits (exact: the same bits give the same double everywhere).
KBRAIN_HOST_DEVICE inline double counter_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
  return static_cast<double>(counter_random_u64(seed, stream, counter) >> 11) * 0x1.0p-53;
}

}  // namespace kbrain
