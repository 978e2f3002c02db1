// run_on<OliveModel> for every enabled backend and both precisions: the IO kernels' one translation unit.
#include <cmath>

#include "models/olive/olive_model.hpp"
#include "models/runtime/run_dispatch_impl.hpp"

KBRAIN_MODEL_RUNS(kbrain::olive::OliveModel)

namespace kbrain::olive {

std::int64_t OliveModel::largest_cells(const Plan& plan, const std::string& backend, Precision precision) {
  std::int64_t cells = 0;
  with_backend_and_real(backend, precision, [&](auto tag, auto real) {
    using Backend = typename decltype(tag)::type;
    const IoMemoryShape shape = olive_memory_shape<Backend, decltype(real)>(plan, RunRequest{});
    cells = largest_fitting_cells(shape, Backend::describe().free_memory_bytes);
  });
  if (plan.network && plan.network->is_mesh()) {
    const auto side = static_cast<std::int64_t>(std::sqrt(double(cells)));
    return side * side;
  }
  return cells;
}

}  // namespace kbrain::olive
