#pragma once
// A simulation's steps, launched through the backend's step graph where it declares one (backends/optional_traits.hpp;
// CUDA: backends/cuda/cuda_step_graph.hpp). The first step is launched directly: it makes the allocations Kokkos makes
// lazily, which a recording must not. Then the step's launches are recorded once alone and once kStepsPerReplay
// times in one graph; steps are queued and a full batch is replayed with one host call. A small network's step is a
// few short kernels, bound by launches rather than work, and one replay starts a batch's kernels back to back.
// Elsewhere (host backends, a model that opts out, or where recording failed) each step is launched directly.
// The model's contract: every step issues the same launches, on the instance it is given, with every value that
// changes from step to step read on the device (e.g. spiking/step_clock.hpp); whatever reads what the steps write
// (state, counters, logs) calls launch_queued() first.
#include <cstdint>
#include <type_traits>

#include "backends/optional_traits.hpp"

namespace kbrain {

// The launch-as-you-go stand-in for backends without a step graph.
template <class Exec>
struct DirectSteps {
  Exec exec() const { return Exec(); }
  bool recorded(int = 0) const { return false; }
  template <class Launch>
  void launch(Launch&& launch) { launch(Exec()); }
};

// Enabled = false launches every step directly, also where the backend has a step graph (benchmarks that time
// the launches, probes that fence between a step's phases).
template <class Backend, bool Enabled = true>
class StepReplay {
 public:
  using Exec = typename Backend::execution_space;
  static constexpr bool kReplays = Enabled && is_detected_v<StepGraphOf, Backend>;
  using Steps = std::conditional_t<kReplays, detected_or_t<DirectSteps<Exec>, StepGraphOf, Backend>, DirectSteps<Exec>>;
  // Steps recorded together in the second graph: one replay launches them all.
  static constexpr int kStepsPerReplay = 16;

  // The instance every step's launches go to.
  Exec exec() const { return steps_.exec(); }

  // Issues one step; launch(exec) launches its kernels on exec.
  template <class Launch>
  void step(Launch&& launch) {
    bool replayed = false;
    if constexpr (kReplays) {
      if (issued_ == 1 && !steps_.recorded(kOneStep) && !record_failed_) {
        record_failed_ = !steps_.record([&](const Exec& exec) { launch(exec); }, kOneStep);
        if (!record_failed_)
          steps_.record(
              [&](const Exec& exec) {
                for (int k = 0; k < kStepsPerReplay; ++k) launch(exec);
              },
              kBatchOfSteps);
      }
      if (steps_.recorded(kOneStep)) {
        if (!steps_.recorded(kBatchOfSteps)) {
          steps_.replay(kOneStep);
        } else if (++queued_ == kStepsPerReplay) {
          steps_.replay(kBatchOfSteps);
          queued_ = 0;
        }
        replayed = true;
      }
    }
    if (!replayed) steps_.launch([&](const Exec& exec) { launch(exec); });
    ++issued_;
  }

  // Launches the steps queued for the next batch replay, one replay each.
  void launch_queued() {
    if constexpr (kReplays)
      for (; queued_ > 0; --queued_) steps_.replay(kOneStep);
  }

  // Launches work that is not a step (e.g. a flush before a read) on exec(), after every step issued so far.
  template <class Launch>
  void launch_now(Launch&& launch) {
    launch_queued();
    steps_.launch([&](const Exec& exec) { launch(exec); });
  }

  // Whether the steps are replayed from a recording (a backend with a step graph, after the first step).
  bool replays() const { return steps_.recorded(kOneStep); }

  // Waits for every step issued so far.
  void fence() {
    launch_queued();
    steps_.exec().fence();
  }

 private:
  // The step graph's two recordings: one step, and kStepsPerReplay steps.
  enum Recording : int { kOneStep = 0, kBatchOfSteps = 1 };

  Steps steps_;
  bool record_failed_ = false;
  int queued_ = 0;  // steps recorded but not yet launched
  std::int64_t issued_ = 0;
};

}  // namespace kbrain
