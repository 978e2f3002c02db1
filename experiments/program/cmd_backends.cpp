#include <fmt/format.h>

#include "backends/registry.hpp"
#include "experiments/program/build_info.hpp"
#include "experiments/program/commands.hpp"

namespace kbrain {

int cmd_backends() {
  fmt::print("kbrain backends ({}):\n", kokkos_description());
  for_each_backend([](auto tag) {
    using B = typename decltype(tag)::type;
    const HardwareInfo h = B::describe();
    fmt::print("  {:<8} {} — {} {}, {:.1f} GiB{}{}\n", B::name, h.device, h.parallel_units, h.unit_name,
               h.memory_bytes / 1073741824.0,
               h.free_memory_bytes ? fmt::format(" ({:.1f} GiB free)", h.free_memory_bytes / 1073741824.0) : "",
               h.extra.empty() ? "" : ", " + h.extra);
  });
  return 0;
}

}  // namespace kbrain
