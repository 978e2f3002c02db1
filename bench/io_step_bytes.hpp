#pragma once
// Bytes one IO step must move through memory (the denominator of "effective GB/s"): each of the 16 state variables
// read once and written once, g_CaL read once, plus the CSR (offsets and sources, conductances when not constant).
// Neighbour V_dend reads are assumed to hit in cache (each value is reused by up to 8 neighbours).
#include <cstdint>

#include "core/network/gap_network.hpp"
#include "models/olive/cell/io_state.hpp"

namespace kbrain::bench {

inline double io_step_bytes(const GapNetwork& net, std::size_t real_bytes, bool mesh_kernel) {
  double b = double(net.cells) * (2.0 * olive::NUM_VARS + 1.0) * double(real_bytes);
  if (!(mesh_kernel && net.is_mesh())) {
    b += double(net.cells + 1) * sizeof(std::int64_t) + double(net.junctions()) * sizeof(std::int32_t);
    if (!net.conductance.empty()) b += double(net.junctions()) * double(real_bytes);
  }
  return b;
}

}  // namespace kbrain::bench
