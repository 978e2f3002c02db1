#pragma once
// Lab: the group pass's loads and stores with CUDA cache hints (SynapsePassGroups' Access parameter), to ask whether
// streaming the synapse arrays past the caches moves them faster (issue 21's 10 000² float goal needs a pass closer
// to the copy rate; bench/README.md, "cache hints", has the answer). Each pass reads a synapse's values once and
// writes them back once, so no line is reused within a pass:
//   StreamingGroupAccess: ld.global.cs and st.global.cs (evict first from L1 and L2);
//   StreamingStoreAccess: plain loads, st.global.cs;
//   LastUseGroupAccess:   ld.global.lu (the line will not be read again) and st.global.cs.
// The arithmetic is the product's, so the bits are too (the probe checks them). Hints on the device code of a CUDA
// build; plain accesses elsewhere (a host build runs the probe for its bit checks).
#include <cstring>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "models/adex_costa/adex_synapse_groups.hpp"

namespace kbrain::adex::lab {

#if defined(KOKKOS_ENABLE_CUDA)
// The unsigned vector type of `bytes` bytes that the hint intrinsics take (4, 8 or 16), void for others.
template <int bytes>
using HintWord = std::conditional_t<bytes == 4, unsigned int,
                                    std::conditional_t<bytes == 8, uint2, std::conditional_t<bytes == 16, uint4, void>>>;
#else
template <int bytes>
using HintWord = void;
#endif

enum class LoadHint { Plain, Streaming, LastUse };

template <LoadHint load_hint, bool streaming_store>
struct HintedGroupAccess {
  template <int G, class T>
  KOKKOS_FORCEINLINE_FUNCTION static GroupOf<T, G> load(const T* at) {
    using W = HintWord<int(G * sizeof(T))>;
    if constexpr (!std::is_void_v<W> && load_hint != LoadHint::Plain) {
#if defined(__CUDA_ARCH__)
      const W w = load_hint == LoadHint::Streaming ? __ldcs(reinterpret_cast<const W*>(at))
                                                   : __ldlu(reinterpret_cast<const W*>(at));
      GroupOf<T, G> g;
      std::memcpy(&g, &w, sizeof(W));
      return g;
#endif
    }
    return load_group<G>(at);
  }
  template <int G, class T>
  KOKKOS_FORCEINLINE_FUNCTION static void store(T* at, const GroupOf<T, G>& g) {
    using W = HintWord<int(G * sizeof(T))>;
    if constexpr (!std::is_void_v<W> && streaming_store) {
#if defined(__CUDA_ARCH__)
      W w;
      std::memcpy(&w, &g, sizeof(W));
      __stcs(reinterpret_cast<W*>(at), w);
      return;
#endif
    }
    store_group<G>(at, g);
  }
};

using StreamingGroupAccess = HintedGroupAccess<LoadHint::Streaming, true>;
using StreamingStoreAccess = HintedGroupAccess<LoadHint::Plain, true>;
using LastUseGroupAccess = HintedGroupAccess<LoadHint::LastUse, true>;

}  // namespace kbrain::adex::lab
