#pragma once
// The index of the step being computed, kept on the backend rather than passed by the host to each launch, so
// that one step's launches are the same every step and can be recorded once and replayed (a CUDA graph, where the
// backend declares one: backends/cuda/cuda_step_graph.hpp).
// Two words, so that no kernel reads a word another thread of the same kernel writes:
//   words(0): the step, read by the step's first kernel (the neurons); its thread 0 copies it into words(1);
//   words(1): the step, read by every later kernel; one thread of the step's last kernel sets words(0) to
//             words(1) + 1 for the next step.
// Kernels of one step run in launch order on every backend, so each word is written only after its readers end.
#include <Kokkos_Core.hpp>

#include "backends/launch_prologue.hpp"

namespace kbrain::spiking {

template <class Mem>
struct StepClock {
  Kokkos::View<int*, Mem> words;

  KOKKOS_INLINE_FUNCTION int first_kernel_step() const { return words(0); }
  KOKKOS_INLINE_FUNCTION int later_kernel_step() const { return words(1); }
  // By one thread of the step's first kernel.
  KOKKOS_INLINE_FUNCTION void publish() const { words(1) = words(0); }
  // By one thread of the step's last kernel.
  KOKKOS_INLINE_FUNCTION void advance() const { words(0) = words(1) + 1; }
};

// A clock on memory space Mem whose next step is `step`.
template <class Mem>
StepClock<Mem> make_step_clock(int step = 0) {
  StepClock<Mem> c{Kokkos::View<int*, Mem>("spiking_step_clock", 2)};
  auto h = Kokkos::create_mirror_view(c.words);
  h(0) = step;
  h(1) = step;
  Kokkos::deep_copy(c.words, h);
  return c;
}

// The first kernel of a step: F(i) over the neurons, with thread 0 publishing the step for the later kernels, after
// the wait where F splits its work there (backends/launch_prologue.hpp): the step is the previous launch's output.
template <class F, class Mem>
struct FirstKernelOfStep {
  F f;
  StepClock<Mem> clock;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    if (i == 0) clock.publish();
    f(i);
  }
  // Host chunked kernels (host code only): index 0 is the first chunk.
  template <class Tag>
  void operator()(Tag tag, const int i) const {
    if (i == 0) clock.publish();
    f(tag, i);
  }
  template <class G = F>
  KOKKOS_INLINE_FUNCTION PrologueOf<G> prologue(const int i) const {
    return f.prologue(i);
  }
  template <class P>
  KOKKOS_INLINE_FUNCTION void after_wait(const int i, const P& p) const {
    if (i == 0) clock.publish();
    f.after_wait(i, p);
  }
};

}  // namespace kbrain::spiking
