#pragma once
// Samples (variable, neuron) values of a point-neuron state on the device (models/common/device_sampler.hpp).
#include <Kokkos_Core.hpp>

#include "models/common/device_sampler.hpp"
#include "models/point/point_state.hpp"

namespace kbrain::point {

template <class Real, class Mem>
struct PointStateReader {
  PointState<Real, Mem> state;
  KOKKOS_INLINE_FUNCTION Real operator()(int var, int i) const { return state.get(var, i); }
};

template <class Exec, class Real>
using PointSampler = StateSampler<Exec, Real, PointStateReader<Real, typename Exec::memory_space>,
                                  PointState<Real, typename Exec::memory_space>>;

}  // namespace kbrain::point
