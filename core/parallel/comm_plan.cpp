#include "core/parallel/comm_plan.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace kbrain {

std::vector<std::int64_t> CommPlan::requests_to(int owner) const {
  for (std::size_t k = 0; k < recv_ranks.size(); ++k)
    if (recv_ranks[k] == owner) {
      const auto b = global.begin() + owned + recv_displs[k];
      return std::vector<std::int64_t>(b, b + recv_counts[k]);
    }
  return {};
}

void set_receive_side(CommPlan& p, const Partition& part, const std::vector<std::int64_t>& halo_ids) {
  p.recv_ranks.clear(), p.recv_counts.clear(), p.recv_displs.clear();
  for (std::size_t h = 0; h < halo_ids.size(); ++h) {
    const int o = part.owner[halo_ids[h]];
    if (p.recv_ranks.empty() || p.recv_ranks.back() != o) {
      p.recv_ranks.push_back(o);
      p.recv_counts.push_back(0);
      p.recv_displs.push_back(static_cast<std::int64_t>(h));
    }
    ++p.recv_counts.back();
  }
}

CommPlan build_comm_plan(int rank, const Partition& part, const std::vector<std::int64_t>& owned,
                         const GapNetwork& rows) {
  const auto n = static_cast<std::int64_t>(owned.size());
  if (rows.cells != n || static_cast<std::int64_t>(rows.offsets.size()) != n + 1)
    throw std::invalid_argument(fmt::format("comm plan: {} rows for {} owned cells", rows.cells, n));
  CommPlan p;
  p.rank = rank;
  p.owned = n;
  p.constant_conductance = rows.constant_conductance;

  // Halo: distinct remote sources (deduplicated with a dense marker array: O(junctions), no sort of all
  // junctions), then sorted by (owner, global id). `local` later maps global -> local id.
  std::vector<std::int32_t> local(static_cast<std::size_t>(part.cells), -1);
  std::vector<std::int64_t> remote;
  std::vector<char> border(static_cast<std::size_t>(n), 0);
  for (std::int64_t r = 0; r < n; ++r) {
    if (part.owner.at(owned[r]) != rank)
      throw std::invalid_argument(fmt::format("comm plan: rank {} does not own cell {}", rank, owned[r]));
    for (std::int64_t k = rows.offsets[r]; k < rows.offsets[r + 1]; ++k) {
      const std::int64_t s = rows.sources[k];
      if (s < 0 || s >= part.cells) throw std::invalid_argument(fmt::format("comm plan: source {} out of range", s));
      if (part.owner[s] != rank) {
        border[r] = 1;
        if (local[s] == -1) {
          local[s] = -2;
          remote.push_back(s);
        }
      }
    }
  }
  std::sort(remote.begin(), remote.end(), [&](std::int64_t a, std::int64_t b) {
    return part.owner[a] != part.owner[b] ? part.owner[a] < part.owner[b] : a < b;
  });
  p.halo = static_cast<std::int64_t>(remote.size());

  // Local numbering: interior (ascending global), border (ascending global), halo.
  std::vector<std::int64_t> row_of;  // local owned id -> row in `rows`
  row_of.reserve(n);
  for (std::int64_t r = 0; r < n; ++r)
    if (!border[r]) row_of.push_back(r);
  p.interior = static_cast<std::int64_t>(row_of.size());
  for (std::int64_t r = 0; r < n; ++r)
    if (border[r]) row_of.push_back(r);
  p.global.reserve(n + p.halo);
  for (auto r : row_of) p.global.push_back(owned[r]);
  p.global.insert(p.global.end(), remote.begin(), remote.end());
  for (std::int64_t l = 0; l < n + p.halo; ++l) local[p.global[l]] = static_cast<std::int32_t>(l);

  p.offsets.resize(static_cast<std::size_t>(n) + 1, 0);
  p.sources.reserve(rows.sources.size());
  if (!rows.conductance.empty()) p.conductance.reserve(rows.conductance.size());
  for (std::int64_t l = 0; l < n; ++l) {
    const std::int64_t r = row_of[l];
    for (std::int64_t k = rows.offsets[r]; k < rows.offsets[r + 1]; ++k) {
      p.sources.push_back(local[rows.sources[k]]);
      if (!rows.conductance.empty()) p.conductance.push_back(rows.conductance[k]);
    }
    p.offsets[l + 1] = static_cast<std::int64_t>(p.sources.size());
  }

  set_receive_side(p, part, remote);
  return p;
}

void set_send_side(CommPlan& plan, const std::vector<std::pair<int, std::vector<std::int64_t>>>& requests) {
  // (global id, local id) of the owned cells, sorted by global id: a binary search per request
  std::vector<std::pair<std::int64_t, std::int32_t>> local(static_cast<std::size_t>(plan.owned));
  for (std::int64_t l = 0; l < plan.owned; ++l) local[l] = {plan.global[l], static_cast<std::int32_t>(l)};
  std::sort(local.begin(), local.end());
  plan.send_ranks.clear();
  plan.send_counts.clear();
  plan.send_displs.clear();
  plan.send_local.clear();
  int last = -1;
  for (const auto& [q, ids] : requests) {
    if (ids.empty()) continue;
    if (q <= last || q == plan.rank)
      throw std::invalid_argument(fmt::format("comm plan: requests of rank {} out of order", q));
    last = q;
    plan.send_ranks.push_back(q);
    plan.send_displs.push_back(static_cast<std::int64_t>(plan.send_local.size()));
    plan.send_counts.push_back(static_cast<std::int64_t>(ids.size()));
    for (auto g : ids) {
      const auto it = std::lower_bound(local.begin(), local.end(), std::make_pair(g, std::int32_t(INT32_MIN)));
      if (it == local.end() || it->first != g)
        throw std::invalid_argument(fmt::format("comm plan: rank {} asks rank {} for cell {}, which it does not own",
                                                q, plan.rank, g));
      plan.send_local.push_back(it->second);
    }
  }
}

GapNetwork extract_rows(const GapNetwork& net, const std::vector<std::int64_t>& targets) {
  GapNetwork out;
  out.cells = static_cast<std::int64_t>(targets.size());
  out.constant_conductance = net.constant_conductance;
  out.offsets.assign(1, 0);
  for (auto t : targets) {
    if (t < 0 || t >= net.cells) throw std::invalid_argument(fmt::format("extract_rows: cell {} out of range", t));
    for (std::int64_t k = net.offsets[t]; k < net.offsets[t + 1]; ++k) {
      out.sources.push_back(net.sources[k]);
      if (!net.conductance.empty()) out.conductance.push_back(net.conductance[k]);
    }
    out.offsets.push_back(static_cast<std::int64_t>(out.sources.size()));
  }
  return out;
}

GapNetwork mesh2d_rows(std::int64_t rows, std::int64_t cols, double g, const std::vector<std::int64_t>& targets) {
  GapNetwork out;
  out.cells = static_cast<std::int64_t>(targets.size());
  out.constant_conductance = g;
  out.offsets.assign(1, 0);
  out.sources.reserve(targets.size() * 8);
  for (auto t : targets) {
    if (t < 0 || t >= rows * cols) throw std::invalid_argument(fmt::format("mesh2d_rows: cell {} out of range", t));
    const std::int64_t r = t / cols, c = t % cols;
    for (std::int64_t dr = -1; dr <= 1; ++dr) {  // the order make_mesh2d uses
      const std::int64_t nr = r + dr;
      if (nr < 0 || nr >= rows) continue;
      for (std::int64_t dc = -1; dc <= 1; ++dc) {
        const std::int64_t nc = c + dc;
        if ((dr == 0 && dc == 0) || nc < 0 || nc >= cols) continue;
        out.sources.push_back(static_cast<std::int32_t>(nr * cols + nc));
      }
    }
    out.offsets.push_back(static_cast<std::int64_t>(out.sources.size()));
  }
  return out;
}

}  // namespace kbrain
