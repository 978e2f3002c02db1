#pragma once
// Device-to-device halo copies between processes on one node, through CUDA IPC (docs/mpi.md, "Peer exchange").
// A rank allocates its receive buffer with allocate(), exports a handle to it, and its neighbours map that buffer
// with open() and write their blocks into it with copy_async() (NVLink / PCIe peer copies, or a copy within one GPU
// when two ranks share it). MPI only carries the small "copies done" tokens. The interface is plain bytes and
// pointers: the model names no CUDA type (core/parallel/halo_peer.hpp uses Backend::peer_transport when a backend
// declares one).
#include <array>
#include <cstddef>

namespace kbrain {

struct CudaPeerTransport {
  using Handle = std::array<unsigned char, 64>;  // cudaIpcMemHandle_t

  static constexpr const char* name = "CUDA IPC peer copies";
  // The current device can export and map memory between processes (unified addressing, a non-WSL Linux driver).
  static bool supported();
  // Device memory another process can map (plain cudaMalloc: memory-pool allocations are not exportable this way).
  static void* allocate(std::size_t bytes);
  static void release(void* p) noexcept;
  static Handle export_handle(void* base);
  // Maps a buffer exported by another process on this node; nullptr if the driver refuses (no peer access between
  // the two GPUs, another node's handle, ...). close() unmaps it.
  static void* open(const Handle& h) noexcept;
  static void close(void* p) noexcept;
  // Enqueued on the stream of Kokkos' default CUDA instance, after the kernels launched before it.
  static void copy_async(void* dst, const void* src, std::size_t bytes);
  // An event on that stream: record() after the copies, wait() blocks the host until they have completed.
  static void* event_create();
  static void event_destroy(void* e) noexcept;
  static void event_record(void* e);
  static void event_wait(void* e);
};

}  // namespace kbrain
