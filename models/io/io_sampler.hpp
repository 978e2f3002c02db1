#pragma once
// Captures chosen (variable, cell) values of the state on the device into a ring of `slots` rows, without any
// host synchronisation; drain() copies the filled rows to the host in one transfer.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <Kokkos_Core.hpp>

#include "models/io/io_state.hpp"

namespace kbrain::io {

template <class Real, class Mem>
struct SampleGatherFunctor {
  StateView<Real, Mem> state;
  Kokkos::View<const int*, Mem> vars, cells;  // flattened pairs, variable-major
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> buffer;
  int slot = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const { buffer(slot, k) = state(vars(k), cells(k)); }
};

template <class Exec, class Real>
class IoSampler {
 public:
  using Mem = typename Exec::memory_space;

  IoSampler() = default;
  // Samples variables x cells (variable-major), up to `slots` samples between drains.
  IoSampler(const std::vector<int>& variables, const std::vector<std::int64_t>& cells, int slots)
      : width_(static_cast<int>(variables.size() * cells.size())), slots_(slots) {
    if (slots < 1) throw std::invalid_argument("sampler needs at least one slot");
    Kokkos::View<int*, Mem> v("sample_vars", width_), c("sample_cells", width_);
    auto vh = Kokkos::create_mirror_view(v);
    auto ch = Kokkos::create_mirror_view(c);
    int k = 0;
    for (int var : variables)
      for (auto cell : cells) {
        vh(k) = var;
        ch(k) = static_cast<int>(cell);
        ++k;
      }
    Kokkos::deep_copy(v, vh);
    Kokkos::deep_copy(c, ch);
    vars_ = v;
    cells_ = c;
    buffer_ = Kokkos::View<Real**, Kokkos::LayoutRight, Mem>("sample_buffer", slots_, width_ > 0 ? width_ : 1);
    host_ = Kokkos::create_mirror_view(buffer_);
  }

  int width() const { return width_; }
  bool full() const { return used_ == slots_; }
  bool empty() const { return used_ == 0; }

  void capture(const StateView<Real, Mem>& state, std::int64_t step) {
    if (full()) throw std::logic_error("sampler full: drain() first");
    SampleGatherFunctor<Real, Mem> f{state, vars_, cells_, buffer_, used_};
    Kokkos::parallel_for("kbrain::io::sample", Kokkos::RangePolicy<Exec>(0, width_), f);
    steps_.push_back(step);
    ++used_;
  }

  // Calls sink(step, const double* values /* width() values */) for each captured sample, oldest first.
  template <class Sink>
  void drain(Sink&& sink) {
    if (used_ == 0) return;
    Kokkos::deep_copy(host_, buffer_);
    std::vector<double> row(width_);
    for (int s = 0; s < used_; ++s) {
      for (int k = 0; k < width_; ++k) row[k] = host_(s, k);
      sink(steps_[s], row.data());
    }
    used_ = 0;
    steps_.clear();
  }

 private:
  int width_ = 0, slots_ = 0, used_ = 0;
  Kokkos::View<const int*, Mem> vars_, cells_;
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> buffer_;
  typename Kokkos::View<Real**, Kokkos::LayoutRight, Mem>::HostMirror host_;
  std::vector<std::int64_t> steps_;
};

}  // namespace kbrain::io
