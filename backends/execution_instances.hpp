#pragma once
// Independent execution-space instances of a backend, for work that must overlap (copies beside kernels: the dense
// AdEx out-of-core pass). On CUDA each instance is a stream of its own; host backends have one queue, so their
// instances are the default instance (nothing overlaps, nothing is wrong).
#include <vector>

#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

namespace kbrain {

template <class Exec>
class ExecutionInstances {
 public:
  explicit ExecutionInstances(int n) : instances_(static_cast<std::size_t>(n)) {}
  const Exec& operator[](int i) const { return instances_[static_cast<std::size_t>(i)]; }
  void fence() const {
    for (const auto& e : instances_) e.fence();
  }

 private:
  std::vector<Exec> instances_;
};

#ifdef KOKKOS_ENABLE_CUDA
template <>
class ExecutionInstances<Kokkos::Cuda> {
 public:
  explicit ExecutionInstances(int n) {
    for (int i = 0; i < n; ++i) {
      cudaStream_t stream = nullptr;
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      streams_.push_back(stream);
      instances_.emplace_back(stream);  // Kokkos does not own the stream: destroyed below
    }
  }
  ~ExecutionInstances() {
    fence();
    instances_.clear();
    for (auto s : streams_) cudaStreamDestroy(s);
  }
  ExecutionInstances(const ExecutionInstances&) = delete;
  ExecutionInstances& operator=(const ExecutionInstances&) = delete;
  const Kokkos::Cuda& operator[](int i) const { return instances_[static_cast<std::size_t>(i)]; }
  void fence() const {
    for (const auto& e : instances_) e.fence();
  }

 private:
  std::vector<cudaStream_t> streams_;
  std::vector<Kokkos::Cuda> instances_;
};
#endif

}  // namespace kbrain
