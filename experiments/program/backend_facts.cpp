#include "experiments/program/backend_facts.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "backends/copy_bandwidth.hpp"
#include "backends/registry.hpp"

namespace kbrain {

BackendFacts backend_facts(const std::string& name) {
  BackendFacts f;
  with_backend(name, [&](auto tag) {
    using B = typename decltype(tag)::type;
    const auto h = B::describe();
    f.gpu = B::is_gpu;
    f.units = h.parallel_units;
    f.description = fmt::format("{} ({} {}{})", h.device, h.parallel_units, h.unit_name,
                                h.extra.empty() ? "" : ", " + h.extra);
  });
  return f;
}

double backend_copy_bytes_per_second(const std::string& name) {
  static std::map<std::string, double> measured;
  if (const auto it = measured.find(name); it != measured.end()) return it->second;
  double best = std::numeric_limits<double>::quiet_NaN();
  with_backend(name, [&](auto tag) {
    using B = typename decltype(tag)::type;
    try {
      const auto [deep, kernel] = copy_bytes_per_second<B>(std::int64_t(256) << 20, 5);
      best = std::max(deep, kernel);
    } catch (const std::exception&) {  // no room for the buffers: the row says "—" rather than failing the comparison
    }
  });
  measured[name] = best;
  return best;
}

std::int64_t budget_steps(const BackendFacts& f, std::int64_t work_units, std::int64_t steps, std::int64_t budget) {
  if (f.gpu) return steps;
  const double allowed = double(budget) * std::max(1, f.units) / double(work_units);
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(allowed), 1, steps);
}

std::string reference_backend(const std::vector<std::string>& compared) {
  return std::find(compared.begin(), compared.end(), "serial") != compared.end() ? "serial" : compared.front();
}

}  // namespace kbrain
