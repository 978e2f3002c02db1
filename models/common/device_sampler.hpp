#pragma once
// Captures chosen (variable, index) values of a model state on the device into a ring of `slots` rows, without any
// host synchronisation; drain() copies the filled rows to the host in one transfer. Shared by the IO and the
// point-neuron samplers, which only say how a value is read (`Reader`: a copyable device-side handle with
// `KOKKOS_INLINE_FUNCTION Real operator()(int var, int index) const`).
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include <Kokkos_Core.hpp>

namespace kbrain {

template <class Reader, class Real, class Mem>
struct SampleGatherFunctor {
  Reader read;
  Kokkos::View<const int*, Mem> vars, indices;  // flattened pairs, variable-major
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> buffer;
  int slot = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const { buffer(slot, k) = read(vars(k), indices(k)); }
};

// Whether a value is NaN or ±inf, from its exponent bits: valid under any floating-point contraction or
// fast-math setting of the compiler, on the host and on the device.
template <class Real>
KOKKOS_INLINE_FUNCTION bool not_finite(Real x) {
  if constexpr (sizeof(Real) == 4) {
    unsigned int bits = 0;
    memcpy(&bits, &x, 4);
    return (bits & 0x7f800000u) == 0x7f800000u;
  } else {
    unsigned long long bits = 0;
    memcpy(&bits, &x, 8);
    return (bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull;
  }
}

// The variables one check reads (every model checks fewer).
inline constexpr int kMaxCheckedVars = 32;

// A checked value the run must stop on: NaN, ±inf, or a magnitude beyond `bound` (compared in double, so a float
// state's bound is the same number as a double state's).
template <class Real>
KOKKOS_INLINE_FUNCTION bool implausible(Real x, double bound) {
  const double magnitude = x < Real(0) ? -double(x) : double(x);
  return not_finite(x) || !(magnitude <= bound);
}

// The smallest flat index var_slot * count + i whose value is not finite or beyond its slot's bound: per index i its
// first such slot, then the minimum over i (the smallest slot wins, then the smallest i: the same answer as a scan
// of the flat index). The slots and bounds travel in the functor, so a check allocates nothing and copies nothing
// before its reduction, and an index needs no 64-bit division.
template <class Reader, class Real>
struct FirstImplausibleFunctor {
  Reader read;
  int vars[kMaxCheckedVars] = {};
  double bounds[kMaxCheckedVars] = {};
  int slots = 0;
  std::int64_t count = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, std::int64_t& first) const {
    for (int slot = 0; slot < slots; ++slot) {
      if (implausible(Real(read(vars[slot], i)), bounds[slot])) {
        const std::int64_t k = slot * count + i;
        if (k < first) first = k;
        return;
      }
    }
  }
};

// The first (variables[slot], index) with index < count whose value is not finite or whose magnitude is beyond
// bounds[slot] (empty bounds: none; +inf: none for that slot), as slot * count + index, or -1.
// One reduction over the state; the host waits for its result.
template <class Exec, class Real, class Reader>
std::int64_t first_implausible(const Reader& read, const std::vector<int>& variables, const std::vector<double>& bounds,
                               std::int64_t count) {
  if (variables.empty() || count <= 0) return -1;
  if (variables.size() > std::size_t(kMaxCheckedVars))
    throw std::logic_error("first_implausible: more checked variables than kMaxCheckedVars");
  if (!bounds.empty() && bounds.size() != variables.size())
    throw std::logic_error("first_implausible: one bound per checked variable");
  FirstImplausibleFunctor<Reader, Real> f{read, {}, {}, int(variables.size()), count};
  for (std::size_t k = 0; k < variables.size(); ++k) {
    f.vars[k] = variables[k];
    f.bounds[k] = bounds.empty() ? std::numeric_limits<double>::infinity() : bounds[k];
  }
  const std::int64_t none = std::int64_t(variables.size()) * count;
  std::int64_t first = none;
  Kokkos::parallel_reduce("kbrain::first_implausible",
                          Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, count), f,
                          Kokkos::Min<std::int64_t>(first));
  return first < none ? first : -1;
}

// The value of (variable, index), read back to the host: what a stopped run's message shows.
template <class Exec, class Real, class Reader>
double value_at(const Reader& read, int variable, std::int64_t index) {
  Kokkos::View<double, typename Exec::memory_space> out("kbrain::value_at");
  Kokkos::parallel_for("kbrain::value_at", Kokkos::RangePolicy<Exec>(0, 1),
                       KOKKOS_LAMBDA(int) { out() = double(Real(read(variable, index))); });
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  return host();
}

template <class Exec, class Real, class Reader>
class DeviceSampler {
 public:
  using Mem = typename Exec::memory_space;

  DeviceSampler() = default;
  // Samples variables x indices (variable-major), up to `slots` samples between drains.
  DeviceSampler(const std::vector<int>& variables, const std::vector<std::int64_t>& indices, int slots)
      : width_(static_cast<int>(variables.size() * indices.size())), slots_(slots) {
    if (slots < 1) throw std::invalid_argument("sampler needs at least one slot");
    Kokkos::View<int*, Mem> v("sample_vars", width_), c("sample_indices", width_);
    auto vh = Kokkos::create_mirror_view(v);
    auto ch = Kokkos::create_mirror_view(c);
    int k = 0;
    for (int var : variables)
      for (auto index : indices) {
        vh(k) = var;
        ch(k) = static_cast<int>(index);
        ++k;
      }
    Kokkos::deep_copy(v, vh);
    Kokkos::deep_copy(c, ch);
    vars_ = v;
    indices_ = c;
    buffer_ = Kokkos::View<Real**, Kokkos::LayoutRight, Mem>("sample_buffer", slots_, width_ > 0 ? width_ : 1);
    host_ = Kokkos::create_mirror_view(buffer_);
  }

  static std::int64_t first_implausible(const Reader& read, const std::vector<int>& variables,
                                       const std::vector<double>& bounds, std::int64_t count) {
    return kbrain::first_implausible<Exec, Real>(read, variables, bounds, count);
  }
  static double value_at(const Reader& read, int variable, std::int64_t index) {
    return kbrain::value_at<Exec, Real>(read, variable, index);
  }

  int width() const { return width_; }
  bool full() const { return used_ == slots_; }
  bool empty() const { return used_ == 0; }

  void capture(const Reader& read, std::int64_t step) {
    if (full()) throw std::logic_error("sampler full: drain() first");
    SampleGatherFunctor<Reader, Real, Mem> f{read, vars_, indices_, buffer_, used_};
    Kokkos::parallel_for("kbrain::sample", Kokkos::RangePolicy<Exec>(0, width_), f);
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
  Kokkos::View<const int*, Mem> vars_, indices_;
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> buffer_;
  typename Kokkos::View<Real**, Kokkos::LayoutRight, Mem>::HostMirror host_;
  std::vector<std::int64_t> steps_;
};

// A DeviceSampler that captures from a model's state type directly (the Reader is built from it: Reader{state}).
template <class Exec, class Real, class Reader, class State>
class StateSampler : public DeviceSampler<Exec, Real, Reader> {
  using Base = DeviceSampler<Exec, Real, Reader>;

 public:
  using Base::Base;
  void capture(const State& state, std::int64_t step) { Base::capture(Reader{state}, step); }
  static std::int64_t first_implausible(const State& state, const std::vector<int>& variables,
                                       const std::vector<double>& bounds, std::int64_t count) {
    return kbrain::first_implausible<Exec, Real>(Reader{state}, variables, bounds, count);
  }
  // The value of one checked (variable, cell), for the message of a run that stopped on it.
  static double value_at(const State& state, int variable, std::int64_t cell) {
    return kbrain::value_at<Exec, Real>(Reader{state}, variable, cell);
  }
};

}  // namespace kbrain
