#pragma once
// One simulation step's launches, recorded once as a CUDA graph and replayed every step. A small network's step is
// a few short kernels: launched one by one, each costs the host a Kokkos launch and the device a launch gap, and
// the step is bound by launches rather than work. A graph replay is one host call, and the device starts its
// kernels back to back.
// An optional backend trait (CudaBackend::step_graph): a model records through it where a backend declares one.
// The model must issue the same launches every step (values that change from step to step live on the device,
// e.g. spiking/step_clock.hpp) and launch them on exec(), an execution-space instance on the graph's own stream.
// That stream is created blocking, so it is ordered with Kokkos' default instance where that is the legacy default
// stream (Kokkos 3.x); where Kokkos' default instance has a stream of its own, replay() orders the two by events.
// If the launches cannot be captured (a library call that is illegal while capturing), record() says so and the
// model launches directly on exec(). It holds kGraphs recordings on its one stream (e.g. one step, and several steps
// in one graph, so that one replay launches them all): replays of either run in the order they are issued.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include <Kokkos_Core.hpp>

namespace kbrain {

class CudaStepGraph {
 public:
  static constexpr int kGraphs = 2;

  CudaStepGraph() {
    check(cudaStreamCreate(&stream_), "cudaStreamCreate");
    exec_ = Kokkos::Cuda(stream_);  // the one-argument form: the stream stays ours (every Kokkos 3.4-5.x)
    default_stream_ = Kokkos::Cuda().cuda_stream();
    if (default_stream_ != nullptr) {
      check(cudaEventCreateWithFlags(&before_, cudaEventDisableTiming), "cudaEventCreate");
      check(cudaEventCreateWithFlags(&after_, cudaEventDisableTiming), "cudaEventCreate");
    }
  }
  CudaStepGraph(const CudaStepGraph&) = delete;
  CudaStepGraph& operator=(const CudaStepGraph&) = delete;
  ~CudaStepGraph() {
    cudaStreamSynchronize(stream_);
    for (cudaGraphExec_t g : graph_exec_)
      if (g != nullptr) cudaGraphExecDestroy(g);
    exec_ = Kokkos::Cuda();  // drop Kokkos' reference to the stream before destroying it
    if (before_ != nullptr) cudaEventDestroy(before_);
    if (after_ != nullptr) cudaEventDestroy(after_);
    cudaStreamDestroy(stream_);
  }

  const Kokkos::Cuda& exec() const { return exec_; }
  bool recorded(int which = 0) const { return graph_exec_[which] != nullptr; }

  // Records the launches launch(exec()) issues as graph `which`, without running them. False when the stream could
  // not be captured: nothing was launched, and the caller launches directly.
  template <class Launch>
  bool record(Launch&& launch, int which = 0) {
    cudaGraphExec_t& recording = graph_exec_[which];
    exec_.fence();
    if (cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    bool launched = true;
    try {
      launch(exec_);
    } catch (const std::exception&) {
      launched = false;
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
    bool ok = launched && ended == cudaSuccess && graph != nullptr &&
              cudaGraphInstantiateWithFlags(&recording, graph, 0) == cudaSuccess;
    if (graph != nullptr) cudaGraphDestroy(graph);
    if (!ok) {
      recording = nullptr;
      cudaGetLastError();  // capture errors are not sticky: clear the last one
    }
    return ok;
  }

  // Runs recording `which`, asynchronously.
  void replay(int which = 0) {
    after_default_stream();
    check(cudaGraphLaunch(graph_exec_[which], stream_), "cudaGraphLaunch");
    before_default_stream();
  }

  // Launches a step directly on exec() (before a recording, or where recording failed), ordered the same way.
  template <class Launch>
  void launch(Launch&& launch) {
    after_default_stream();
    launch(exec_);
    before_default_stream();
  }

 private:
  // Work queued on Kokkos' default instance runs before the step, and work queued there later runs after it.
  void after_default_stream() {
    if (default_stream_ == nullptr) return;
    check(cudaEventRecord(before_, default_stream_), "cudaEventRecord");
    check(cudaStreamWaitEvent(stream_, before_, 0), "cudaStreamWaitEvent");
  }
  void before_default_stream() {
    if (default_stream_ == nullptr) return;
    check(cudaEventRecord(after_, stream_), "cudaEventRecord");
    check(cudaStreamWaitEvent(default_stream_, after_, 0), "cudaStreamWaitEvent");
  }

  static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(e));
  }

  cudaStream_t stream_ = nullptr, default_stream_ = nullptr;
  cudaEvent_t before_ = nullptr, after_ = nullptr;
  Kokkos::Cuda exec_;
  cudaGraphExec_t graph_exec_[kGraphs] = {nullptr, nullptr};
};

}  // namespace kbrain
