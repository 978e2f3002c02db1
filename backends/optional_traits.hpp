#pragma once
// The optional members of a backend's traits (docs/dev/adding-a-backend.md), for detection with core/detected.hpp:
//   is_detected_v<ChainedLaunchOf, Backend>  launches of one index per thread that overlap the previous launch's tail
//                                            (backends/cuda/cuda_chained_launch.hpp)
//   is_detected_v<StepGraphOf, Backend>      a simulation step recorded once and replayed
//                                            (backends/cuda/cuda_step_graph.hpp)
// Backends without them launch with Kokkos::parallel_for. (peer_transport is detected in core/parallel/halo_peer.hpp.)
#include "core/detected.hpp"

namespace kbrain {

template <class Backend>
using ChainedLaunchOf = typename Backend::chained_launch;

template <class Backend>
using StepGraphOf = typename Backend::step_graph;

template <class Backend>
inline constexpr bool kHasChainedLaunch = is_detected_v<ChainedLaunchOf, Backend>;

}  // namespace kbrain
