#pragma once
// Bytes one IO step must move through memory (the denominator of "effective GB/s"): the model's count
// (models/olive/drivers/io_step_bytes.hpp) for a network built on the host.
#include <cstdint>

#include "core/network/gap_network.hpp"
#include "models/olive/drivers/io_step_bytes.hpp"

namespace kbrain::bench {

inline double io_step_bytes(const GapNetwork& net, std::size_t real_bytes, bool mesh_kernel) {
  return olive::io_step_bytes(net.cells, double(net.junctions()), real_bytes, !(mesh_kernel && net.is_mesh()),
                              !net.conductance.empty());
}

}  // namespace kbrain::bench
