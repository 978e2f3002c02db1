#pragma once
// Samples (variable, cell) values of the IO state on the device (models/common/device_sampler.hpp).
#include <Kokkos_Core.hpp>

#include "models/common/device_sampler.hpp"
#include "models/olive/cell/io_state.hpp"

namespace kbrain::olive {

template <class Real, class Mem>
struct IoStateReader {
  StateView<Real, Mem> state;
  KOKKOS_INLINE_FUNCTION Real operator()(int var, int cell) const { return state(var, cell); }
};

template <class Exec, class Real>
using IoSampler = StateSampler<Exec, Real, IoStateReader<Real, typename Exec::memory_space>,
                               StateView<Real, typename Exec::memory_space>>;

}  // namespace kbrain::olive
