#pragma once
// Captures chosen (variable, neuron) values of a point-neuron state into a device ring of `slots` rows without host
// synchronisation; drain() copies the filled rows to the host in one transfer.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <Kokkos_Core.hpp>

#include "models/point/point_state.hpp"

namespace kbrain::point {

template <class Real, class Mem>
struct PointSampleFunctor {
  PointState<Real, Mem> state;
  Kokkos::View<const int*, Mem> vars, neurons;  // flattened pairs, variable-major
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> buffer;
  int slot = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const {
    buffer(slot, k) = static_cast<double>(state.get(vars(k), neurons(k)));
  }
};

template <class Exec, class Real>
class PointSampler {
 public:
  using Mem = typename Exec::memory_space;

  PointSampler(const std::vector<int>& variables, const std::vector<std::int64_t>& neurons, int slots)
      : width_(static_cast<int>(variables.size() * neurons.size())), slots_(slots) {
    Kokkos::View<int*, Mem> v("sample_vars", width_), c("sample_neurons", width_);
    auto vh = Kokkos::create_mirror_view(v);
    auto ch = Kokkos::create_mirror_view(c);
    int k = 0;
    for (int var : variables)
      for (auto n : neurons) {
        vh(k) = var;
        ch(k) = static_cast<int>(n);
        ++k;
      }
    Kokkos::deep_copy(v, vh);
    Kokkos::deep_copy(c, ch);
    vars_ = v;
    neurons_ = c;
    buffer_ = Kokkos::View<double**, Kokkos::LayoutRight, Mem>("point_samples", slots_, width_ > 0 ? width_ : 1);
    host_ = Kokkos::create_mirror_view(buffer_);
  }

  bool full() const { return used_ == slots_; }
  int width() const { return width_; }

  void capture(const PointState<Real, Mem>& state, std::int64_t step) {
    if (full()) throw std::logic_error("point sampler full: drain() first");
    PointSampleFunctor<Real, Mem> f{state, vars_, neurons_, buffer_, used_};
    Kokkos::parallel_for("kbrain::point::sample", Kokkos::RangePolicy<Exec>(0, width_), f);
    steps_.push_back(step);
    ++used_;
  }

  // sink(step, const double* values) per captured sample, oldest first.
  template <class Sink>
  void drain(Sink&& sink) {
    if (used_ == 0) return;
    Kokkos::deep_copy(host_, buffer_);
    for (int s = 0; s < used_; ++s) sink(steps_[s], &host_(s, 0));
    used_ = 0;
    steps_.clear();
  }

 private:
  int width_ = 0, slots_ = 1, used_ = 0;
  Kokkos::View<const int*, Mem> vars_, neurons_;
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> buffer_;
  typename Kokkos::View<double**, Kokkos::LayoutRight, Mem>::HostMirror host_;
  std::vector<std::int64_t> steps_;
};

}  // namespace kbrain::point
