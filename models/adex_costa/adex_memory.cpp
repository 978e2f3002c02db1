// The device-memory check of the dense plastic network: refuse before allocating, naming what is needed.
#include <fmt/format.h>

#include <stdexcept>

#include "models/adex_costa/adex_simulation.hpp"

namespace kbrain::adex {

void require_device_memory(std::int64_t needed, std::uint64_t available, const std::string& device,
                           std::int64_t n_pre, std::int64_t n_post, bool can_stream, std::int64_t largest_neurons) {
  if (available == 0 || std::uint64_t(needed) <= available) return;
  const std::string remedy =
      can_stream ? fmt::format("set a device budget (--device-budget or [simulation] device_budget, e.g. {}) to stream "
                               "the synapses between page-locked host memory and the device",
                               available)
                 : fmt::format("at most {} neurons fit (network.neurons), or run on a backend with more memory",
                               largest_neurons);
  throw std::runtime_error(fmt::format("the dense {} x {} network needs {:.2f} GiB of device memory ({} bytes) but {} "
                                       "has {:.2f} GiB free; {}",
                                       n_pre, n_post, double(needed) / 1073741824.0, needed, device,
                                       double(available) / 1073741824.0, remedy));
}

}  // namespace kbrain::adex
