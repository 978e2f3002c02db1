#include "backends/cuda/cuda_peer_transport.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>
#include <cuda_runtime.h>

namespace kbrain {

static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(CudaPeerTransport::Handle), "cudaIpcMemHandle_t is 64 bytes");

namespace {
void check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(rc));
}
cudaStream_t kokkos_stream() { return Kokkos::Cuda().cuda_stream(); }
}  // namespace

bool CudaPeerTransport::supported() {
  int device = 0, unified = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&unified, cudaDevAttrUnifiedAddressing, device) != cudaSuccess) return false;
  return unified != 0;
}

void* CudaPeerTransport::allocate(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc (peer exchange buffer)");
  return p;
}

void CudaPeerTransport::release(void* p) noexcept {
  if (p) cudaFree(p);
}

CudaPeerTransport::Handle CudaPeerTransport::export_handle(void* base) {
  cudaIpcMemHandle_t h;
  check(cudaIpcGetMemHandle(&h, base), "cudaIpcGetMemHandle");
  Handle out;
  std::memcpy(out.data(), &h, sizeof h);
  return out;
}

void* CudaPeerTransport::open(const Handle& in) noexcept {
  cudaIpcMemHandle_t h;
  std::memcpy(&h, in.data(), sizeof h);
  void* p = nullptr;
  if (cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
    cudaGetLastError();  // reset the last-error state, so that later checks do not report this refusal
    return nullptr;
  }
  return p;
}

void CudaPeerTransport::close(void* p) noexcept {
  if (p) cudaIpcCloseMemHandle(p);
}

void CudaPeerTransport::copy_async(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, kokkos_stream()), "cudaMemcpyAsync (peer)");
}

void* CudaPeerTransport::event_create() {
  cudaEvent_t e;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  return e;
}

void CudaPeerTransport::event_destroy(void* e) noexcept {
  if (e) cudaEventDestroy(static_cast<cudaEvent_t>(e));
}

void CudaPeerTransport::event_record(void* e) {
  check(cudaEventRecord(static_cast<cudaEvent_t>(e), kokkos_stream()), "cudaEventRecord");
}

void CudaPeerTransport::event_wait(void* e) {
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(e)), "cudaEventSynchronize");
}

}  // namespace kbrain
