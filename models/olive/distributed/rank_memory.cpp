#include "models/olive/distributed/rank_memory.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/runtime/memory_statement.hpp"

namespace kbrain::olive {

double rank_rows_bytes(const RankPart& p) { return 8.0 * double(p.owned + 1) + 12.0 * double(p.junctions); }

double rank_comm_plan_bytes(const RankPart& p) {
  return 8.0 * double(p.owned + p.halo) + 8.0 * double(p.owned + 1) + 12.0 * double(p.junctions) +
         4.0 * double(p.junctions);
}

std::string rank_refusal(const std::vector<RankNeed>& ranks, const std::string& where, const std::string& device) {
  const auto count = ranks.size();
  for (std::size_t r = 0; r < count; ++r) {
    const RankNeed& n = ranks[r];
    const bool device_short = n.device_available > 0 && n.device_need > n.device_available;
    const bool host_short = n.host_available > 0 && n.host_need > n.host_available;
    if (!device_short && !host_short) continue;
    const double need = device_short ? n.device_need : n.host_need;
    const double available = device_short ? n.device_available : n.host_available;
    // the need grows about linearly with the cells a rank owns
    const auto cells_fit = static_cast<std::int64_t>(std::floor(double(n.part.owned) * available / need));
    return fmt::format(
        "{}: [network]: rank {} of {}: its part ({} cells, {} junctions, a halo of at most {} cells) needs {} of {} "
        "but {} are available{}; about {} cells a rank fit (more ranks or a smaller network)",
        where, r, count, n.part.owned, n.part.junctions, n.part.halo, byte_text(need),
        device_short ? "device memory" : "host memory", byte_text(available),
        device_short ? " on " + device : std::string(), cells_fit);
  }
  return {};
}

}  // namespace kbrain::olive
