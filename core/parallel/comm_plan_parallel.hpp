#pragma once
// The communication plan of one rank built in parallel on the backend (docs/mpi.md, "Communication plan"). It is
// the plan of build_comm_plan (core/parallel/comm_plan.hpp, the single-threaded host reference) entry for entry,
// but the rows never leave the backend's memory: the generated rows (global sources) go in, the rows in local
// order with local sources come out, both as GeneratedNetwork<double, Mem>. Only the halo (sorted by owner on the
// host, O(halo)) and the owned cells' new order (O(owned)) cross to the host.
//
// Steps, each a Kokkos kernel over rows or cells:
//   mark     per row: validate the sources, flag remote sources (global marker array) and border rows
//   halo     compaction of the flagged cells (ascending ids), then a counting sort by owner on the host
//   order    interior rows first, then border rows, each ascending (a scan over the border flags)
//   local    global -> local id (the marker array reused), rows renumbered in local order, junction order unchanged
// Memory: the marker array and the partition's owner array have one int32 per global cell; the rest is per rank.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <fmt/format.h>

#include "core/network/gap_network.hpp"
#include "core/network/generate_network.hpp"
#include "core/parallel/comm_plan.hpp"
#include "core/parallel/partition.hpp"

namespace kbrain {

// One rank's plan and its rows on the backend. plan.offsets / plan.sources / plan.conductance stay empty: the rows
// are `rows` (owned cells in local order, sources as local ids, conductances in double: exact).
template <class Mem>
struct RankPlan {
  CommPlan plan;
  GeneratedNetwork<double, Mem> rows;
};

namespace plan_kernels {

// A relaxed atomic load. A plain read of a cell that other threads write atomically at the same time is a data race
// in C++'s memory model (ThreadSanitizer reports it: scripts/race_check.sh), however harmless the value read; an
// atomic load costs the same as the plain read (a mov on x86, a volatile load on CUDA). Kokkos::atomic_load is
// public from 4.0 (and with 3.x's desul atomics); 3.x without them has it in Impl only.
template <class T>
KOKKOS_INLINE_FUNCTION T relaxed_load(T* p) {
#if KOKKOS_VERSION >= 40000 || defined(KOKKOS_ENABLE_IMPL_DESUL_ATOMICS)
  return Kokkos::atomic_load(p);
#else
  return Kokkos::Impl::atomic_load(p, Kokkos::Impl::memory_order_relaxed);
#endif
}

// Per row: out-of-range sources are counted (the reduction), remote sources marked, border rows flagged.
template <class Mem>
struct MarkRemote {
  Kokkos::View<const std::int64_t*, Mem> offsets;
  Kokkos::View<const std::int32_t*, Mem> sources;
  Kokkos::View<const std::int32_t*, Mem> owner;  // per global cell
  Kokkos::View<std::int32_t*, Mem> mark;         // per global cell: 1 = a remote source some row reads
  Kokkos::View<std::int32_t*, Mem> border;       // per row
  std::int64_t cells = 0;
  int rank = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r, std::int64_t& bad) const {
    std::int32_t b = 0;
    for (std::int64_t k = offsets(r); k < offsets(r + 1); ++k) {
      const std::int64_t s = sources(k);
      if (s < 0 || s >= cells) {
        ++bad;
        continue;
      }
      if (owner(s) != rank) {
        b = 1;
        // The same value from every writer; the check skips the atomic write when the cell is marked already. One
        // compare-and-swap, not atomic_exchange: Kokkos 3.x's exchange for int is a CAS loop seeded by a plain read.
        if (relaxed_load(&mark(s)) == 0) Kokkos::atomic_compare_exchange(&mark(s), std::int32_t(0), std::int32_t(1));
      }
    }
    border(r) = b;
  }
};

template <class Mem>
struct CountMarked {
  Kokkos::View<const std::int32_t*, Mem> mark;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t c, std::int64_t& n) const { n += mark(c); }
};

template <class Mem>
struct CompactMarked {  // ids(k) = the k-th marked cell, ascending
  Kokkos::View<const std::int32_t*, Mem> mark;
  Kokkos::View<std::int64_t*, Mem> ids;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t c, std::int64_t& pos, const bool final) const {
    if (mark(c)) {
      if (final) ids(pos) = c;
      ++pos;
    }
  }
};

template <class Mem>
struct CountBorder {
  Kokkos::View<const std::int32_t*, Mem> border;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r, std::int64_t& n) const { n += border(r); }
};

template <class Mem>
struct OrderRows {  // row_of(local) = row: interior rows ascending, then border rows ascending
  Kokkos::View<const std::int32_t*, Mem> border;
  Kokkos::View<std::int64_t*, Mem> row_of;
  std::int64_t interior = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r, std::int64_t& interior_before, const bool final) const {
    if (final) row_of(border(r) ? interior + (r - interior_before) : interior_before) = r;
    if (!border(r)) ++interior_before;
  }
};

template <class Mem>
struct NumberCells {  // local(global id) = local id, for owned cells (l < owned) and halo cells
  Kokkos::View<const std::int64_t*, Mem> owned_ids, row_of, halo_ids;
  Kokkos::View<std::int32_t*, Mem> local;
  std::int64_t owned = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t l) const {
    const std::int64_t g = l < owned ? owned_ids(row_of(l)) : halo_ids(l - owned);
    local(g) = static_cast<std::int32_t>(l);
  }
};

template <class Mem>
struct RowLengths {  // offsets(l + 1) = length of row row_of(l); offsets(0) = 0 (then an exclusive scan)
  Kokkos::View<const std::int64_t*, Mem> old_offsets, row_of;
  Kokkos::View<std::int64_t*, Mem> offsets;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t l) const {
    offsets(l) = old_offsets(row_of(l) + 1) - old_offsets(row_of(l));
  }
};

template <class Mem>
struct Renumber {  // row l = row row_of(l), sources mapped to local ids, junction order unchanged
  Kokkos::View<const std::int64_t*, Mem> old_offsets, row_of, offsets;
  Kokkos::View<const std::int32_t*, Mem> old_sources, local;
  Kokkos::View<const double*, Mem> old_g;
  Kokkos::View<std::int32_t*, Mem> sources;
  Kokkos::View<double*, Mem> g;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t l) const {
    const std::int64_t b = old_offsets(row_of(l)), e = old_offsets(row_of(l) + 1), d = offsets(l) - b;
    for (std::int64_t k = b; k < e; ++k) sources(k + d) = local(old_sources(k));
    if (g.extent(0) != 0)
      for (std::int64_t k = b; k < e; ++k) g(k + d) = old_g(k);
  }
};

}  // namespace plan_kernels

// The plan of build_comm_plan(rank, part, owned, rows) with `rows` on Mem (row k = cell owned[k], owned ascending,
// sources global). Throws std::invalid_argument on inconsistent input, like build_comm_plan.
template <class Exec, class Mem = typename Exec::memory_space>
RankPlan<Mem> build_comm_plan_parallel(int rank, const Partition& part, const std::vector<std::int64_t>& owned,
                                       const GeneratedNetwork<double, Mem>& rows) {
  using namespace plan_kernels;
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  const auto n = static_cast<std::int64_t>(owned.size());
  if (rows.cells != n || static_cast<std::int64_t>(rows.offsets.extent(0)) != n + 1)
    throw std::invalid_argument(fmt::format("comm plan: {} rows for {} owned cells", rows.cells, n));
  if (part.cells > INT32_MAX) throw std::invalid_argument("comm plan: more than 2^31-1 cells");
  for (auto c : owned)
    if (c < 0 || c >= part.cells || part.owner[static_cast<std::size_t>(c)] != rank)
      throw std::invalid_argument(fmt::format("comm plan: rank {} does not own cell {}", rank, c));
  RankPlan<Mem> out;
  CommPlan& p = out.plan;
  p.rank = rank;
  p.owned = n;
  p.constant_conductance = rows.g.extent(0) == 0 ? rows.g_const : 0.0;

  // mark: remote sources (global marker) and border rows
  Kokkos::View<std::int32_t*, Mem> owner(Kokkos::view_alloc(Kokkos::WithoutInitializing, "plan_owner"), part.cells);
  Kokkos::deep_copy(owner, Kokkos::View<const std::int32_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                               part.owner.data(), part.owner.size()));
  Kokkos::View<std::int32_t*, Mem> mark("plan_mark", part.cells);
  Kokkos::View<std::int32_t*, Mem> border(Kokkos::view_alloc(Kokkos::WithoutInitializing, "plan_border"), n);
  std::int64_t bad = 0;
  Kokkos::parallel_reduce("kbrain::plan::mark", Range(0, n),
                          MarkRemote<Mem>{rows.offsets, rows.sources, owner, mark, border, part.cells, rank}, bad);
  if (bad > 0)
    throw std::invalid_argument(fmt::format("comm plan: {} sources out of range [0, {})", bad, part.cells));

  // halo: marked cells ascending, then grouped by owner (a stable counting sort on the host)
  std::int64_t halo = 0;
  Kokkos::parallel_reduce("kbrain::plan::count_halo", Range(0, part.cells), CountMarked<Mem>{mark}, halo);
  Kokkos::View<std::int64_t*, Mem> marked(Kokkos::view_alloc(Kokkos::WithoutInitializing, "plan_marked"), halo);
  Kokkos::parallel_scan("kbrain::plan::compact_halo", Range(0, part.cells), CompactMarked<Mem>{mark, marked});
  auto marked_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), marked);
  std::vector<std::int64_t> per_owner(static_cast<std::size_t>(part.ranks) + 1, 0);
  for (std::int64_t h = 0; h < halo; ++h) ++per_owner[static_cast<std::size_t>(part.owner[marked_h(h)]) + 1];
  for (int q = 0; q < part.ranks; ++q) per_owner[q + 1] += per_owner[q];
  std::vector<std::int64_t> halo_ids(static_cast<std::size_t>(halo));
  for (std::int64_t h = 0; h < halo; ++h) halo_ids[per_owner[part.owner[marked_h(h)]]++] = marked_h(h);
  p.halo = halo;
  if (n + halo > INT32_MAX) throw std::invalid_argument("comm plan: more than 2^31-1 local cells");

  // order: interior rows, then border rows
  std::int64_t border_rows = 0;
  Kokkos::parallel_reduce("kbrain::plan::count_border", Range(0, n), CountBorder<Mem>{border}, border_rows);
  p.interior = n - border_rows;
  Kokkos::View<std::int64_t*, Mem> row_of(Kokkos::view_alloc(Kokkos::WithoutInitializing, "plan_row_of"), n);
  Kokkos::parallel_scan("kbrain::plan::order_rows", Range(0, n), OrderRows<Mem>{border, row_of, p.interior});

  // local numbering (the marker array becomes global -> local) and the renumbered rows
  Kokkos::View<std::int64_t*, Mem> owned_d(Kokkos::view_alloc(Kokkos::WithoutInitializing, "plan_owned"), n);
  Kokkos::deep_copy(owned_d, Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                 owned.data(), owned.size()));
  Kokkos::View<std::int64_t*, Mem> halo_d(Kokkos::view_alloc(Kokkos::WithoutInitializing, "plan_halo"), halo);
  Kokkos::deep_copy(halo_d, Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                halo_ids.data(), halo_ids.size()));
  const auto& local = mark;
  Kokkos::parallel_for("kbrain::plan::number", Range(0, n + halo), NumberCells<Mem>{owned_d, row_of, halo_d, local, n});
  GeneratedNetwork<double, Mem>& r = out.rows;
  r.cells = n;
  r.g_const = rows.g_const;
  r.offsets = Kokkos::View<std::int64_t*, Mem>("plan_offsets", n + 1);  // offsets(n) = 0 before the scan
  Kokkos::parallel_for("kbrain::plan::row_lengths", Range(0, n), RowLengths<Mem>{rows.offsets, row_of, r.offsets});
  Kokkos::parallel_scan("kbrain::plan::offsets", Range(0, n + 1), netgen::ExclusiveScan<Mem>{r.offsets});
  const std::int64_t junctions = rows.junctions();
  r.sources = Kokkos::View<std::int32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "plan_sources"),
                                               junctions);
  if (rows.g.extent(0) != 0)
    r.g = Kokkos::View<double*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "plan_g"), junctions);
  Kokkos::parallel_for("kbrain::plan::renumber", Range(0, n),
                       Renumber<Mem>{rows.offsets, row_of, r.offsets, rows.sources, local, rows.g, r.sources, r.g});

  // host side: global id of every local id, receive blocks
  auto row_of_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_of);
  p.global.resize(static_cast<std::size_t>(n + halo));
  for (std::int64_t l = 0; l < n; ++l) p.global[l] = owned[row_of_h(l)];
  std::copy(halo_ids.begin(), halo_ids.end(), p.global.begin() + n);
  set_receive_side(p, part, halo_ids);
  Exec().fence();
  return out;
}

}  // namespace kbrain
