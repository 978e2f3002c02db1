#pragma once
// What the host has available to all its processes together (MemAvailable), without one process' own address-space
// limit: the processes of one host (the ranks of an MPI run on one node) share it, so their needs add up against it.
#include <cstdint>

namespace kbrain {

std::uint64_t host_shared_available_memory_bytes();  // 0 when unknown

}  // namespace kbrain
