#include "models/olive/distributed/rank_memory.hpp"

#include <algorithm>
#include <cmath>
#include <map>

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
  // ranks that fit one by one may still not fit together on the host they share
  std::map<std::int64_t, std::vector<std::size_t>> hosts;
  for (std::size_t r = 0; r < count; ++r) hosts[ranks[r].host_id].push_back(r);
  for (const auto& [host, members] : hosts) {
    const double available = ranks[members.front()].host_shared_available;
    double need = 0, owned = 0;
    std::string names;
    for (const auto r : members) {
      need += ranks[r].host_need;
      owned += double(ranks[r].part.owned);
      names += fmt::format("{}{}", names.empty() ? "" : ", ", r);
    }
    if (members.size() < 2 || available <= 0 || need <= available) continue;
    const auto cells_fit = static_cast<std::int64_t>(std::floor(owned / double(members.size()) * available / need));
    return fmt::format(
        "{}: [network]: the {} ranks on one host (ranks {}) need {} of host memory together but {} are available "
        "there; about {} cells a rank fit (fewer ranks a host, more hosts or a smaller network)",
        where, members.size(), names, byte_text(need), byte_text(available), cells_fit);
  }
  return {};
}

}  // namespace kbrain::olive
