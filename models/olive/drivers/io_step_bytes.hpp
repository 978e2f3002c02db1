#pragma once
// Bytes one IO step must move through memory (the numerator of "achieved GB/s" in compare and in bench/): each of the
// 16 state variables read once and written once, g_CaL read once, plus the CSR (offsets and sources, conductances
// when they are not one constant) unless the mesh kernel finds the neighbours by index. Neighbour V_dend reads are
// assumed to hit in cache (each value is reused by up to 8 neighbours), so this is the least a step can move.
#include <cstdint>

#include "models/olive/cell/io_vars.hpp"

namespace kbrain::olive {

inline double io_step_bytes(std::int64_t cells, double junctions, std::size_t real_bytes, bool csr, bool per_junction_g) {
  double b = double(cells) * (2.0 * NUM_VARS + 1.0) * double(real_bytes);
  if (csr) {
    b += double(cells + 1) * sizeof(std::int64_t) + junctions * sizeof(std::int32_t);
    if (per_junction_g) b += junctions * double(real_bytes);
  }
  return b;
}

}  // namespace kbrain::olive
