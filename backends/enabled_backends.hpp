#pragma once
// The backends compiled into this build, as a type list. This is the only file that names them all:
// adding a backend = a folder with its traits type + one line here (+ its sources in backends/CMakeLists.txt).
#include <tuple>

#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_SERIAL
#include "backends/serial/serial_backend.hpp"
#endif
#ifdef KOKKOS_ENABLE_OPENMP
#include "backends/openmp/openmp_backend.hpp"
#endif
#ifdef KOKKOS_ENABLE_CUDA
#include "backends/cuda/cuda_backend.hpp"
#endif

namespace kbrain {

namespace detail {
template <class... Ts>
struct TupleCat {
  using type = decltype(std::tuple_cat(std::declval<Ts>()...));
};
}  // namespace detail

using EnabledBackends = typename detail::TupleCat<
#ifdef KOKKOS_ENABLE_SERIAL
    std::tuple<SerialBackend>,
#endif
#ifdef KOKKOS_ENABLE_OPENMP
    std::tuple<OpenMPBackend>,
#endif
#ifdef KOKKOS_ENABLE_CUDA
    std::tuple<CudaBackend>,
#endif
    std::tuple<>>::type;

}  // namespace kbrain
