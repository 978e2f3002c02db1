#pragma once
// Brick-tiled gap currents for networks whose cells sit on a cubic lattice (gaussian3d: id = x*b^2 + y*b + z,
// docs/network-generators.md) and whose junctions are local. The fused and split kernels gather every partner's
// V_dend from global memory: at 4M cells x 1000 junctions that is 4.2 G random loads per step, served from L2, and
// they bound the step (docs/journal/2026-11-22-random-networks-fused-split-622b975.md). Here the lattice is cut into bricks of brick^3 sites; one team per
// brick copies V_dend of the cube around it (brick + 2 * halo sites per side) into team scratch memory with
// coalesced loads, then each cell sums its partners from there. Per junction the step reads a 2-byte slot in that
// cube instead of a 4-byte source id and a global gather. Junctions that reach outside the cube (the Gaussian's
// tail) are kept in a second, ordinary CSR and gathered from global memory in a loop of their own, so no lane
// waits on another's global load.
//
// The two lists are built once from the CSR (build_tiled_gap), in CSR order within each list. Summation: the
// in-cube terms, then the out-of-cube terms, each reduced over the vector lanes; so results agree with the fused
// kernel to rounding, not bit for bit (as with the split kernel).
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "core/network/random_network_kernels.hpp"  // netgen::ExclusiveScan
#include "models/olive/gap/io_gap_junctions.hpp"
#include "models/olive/cell/io_state.hpp"
#include "models/olive/cell/io_step.hpp"
#include "models/olive/launch/olive_launch_traits.hpp"

namespace kbrain::olive {

// How the lattice is cut. side: lattice edge b (cells = N <= b^3, the last x-slab may be partial).
struct BrickTiling {
  std::int64_t cells = 0;
  int side = 0, brick = 0, halo = 0;

  KOKKOS_INLINE_FUNCTION int region() const { return brick + 2 * halo; }
  KOKKOS_INLINE_FUNCTION int bricks_yz() const { return (side + brick - 1) / brick; }
  int bricks_x() const {
    const std::int64_t slabs = (cells + std::int64_t(side) * side - 1) / (std::int64_t(side) * side);
    return static_cast<int>((slabs + brick - 1) / brick);
  }
  std::int64_t bricks() const { return std::int64_t(bricks_x()) * bricks_yz() * bricks_yz(); }
  KOKKOS_INLINE_FUNCTION std::int64_t region_sites() const { return std::int64_t(region()) * region() * region(); }

  void validate() const {
    if (side <= 0 || cells <= 0 || cells > std::int64_t(side) * side * side)
      throw std::invalid_argument("brick tiling: " + std::to_string(cells) + " cells do not fit a lattice of side " +
                                  std::to_string(side));
    if (brick < 1 || halo < 0)
      throw std::invalid_argument("brick tiling: brick must be >= 1 and halo >= 0 (got " + std::to_string(brick) +
                                  ", " + std::to_string(halo) + ")");
    if (region_sites() > 65535)
      throw std::invalid_argument("brick tiling: brick + 2*halo = " + std::to_string(region()) +
                                  " gives more than 65535 sites (slots are 16-bit)");
  }
};

// The largest cube of Real values that fits `scratch_bytes`, cut as halo = region/3 (rounded down) and the rest
// for the brick: 7^3 + 7 in float, 7^3 + 5 in double with 40 KiB: the fastest of the cuts measured at 4M x 1000
// (docs/journal/2026-11-22-gaussian-4m-tiled-7ac7033.md; bench/README.md lists the others).
template <class Real>
BrickTiling default_tiling(std::int64_t cells, int side, std::int64_t scratch_bytes) {
  int r = 1;
  constexpr std::int64_t kAlignmentSlack = 128;  // what a scratch View may add to its bytes (shmem_size)
  while (r < 40 && std::int64_t(r + 1) * (r + 1) * (r + 1) * std::int64_t(sizeof(Real)) + kAlignmentSlack <= scratch_bytes)
    ++r;
  BrickTiling t;
  t.cells = cells;
  t.side = side;
  t.halo = r / 3;
  t.brick = r - 2 * t.halo;
  if (t.brick < 1) {
    t.brick = 1;
    t.halo = (r - 1) / 2;
  }
  return t;
}

template <class Real, class Mem>
struct TiledGapJunctions {
  BrickTiling tiling;
  Kokkos::View<const std::int64_t*, Mem> in_offsets, out_offsets;  // cells + 1 each
  Kokkos::View<const std::uint16_t*, Mem> slots;                   // in-cube junctions: site in the brick's cube
  Kokkos::View<const std::int32_t*, Mem> out_sources;              // out-of-cube junctions: source cell
  Kokkos::View<const Real*, Mem> g_in, g_out;                      // per junction when per_junction_g
  bool per_junction_g = false;                                     // else every junction has g_const
  Real g_const = Real(0);

  std::int64_t in_junctions() const { return static_cast<std::int64_t>(slots.extent(0)); }
  std::int64_t out_junctions() const { return static_cast<std::int64_t>(out_sources.extent(0)); }
  std::int64_t device_bytes() const {
    return static_cast<std::int64_t>((in_offsets.extent(0) + out_offsets.extent(0)) * sizeof(std::int64_t) +
                                     slots.extent(0) * sizeof(std::uint16_t) +
                                     out_sources.extent(0) * sizeof(std::int32_t) +
                                     (g_in.extent(0) + g_out.extent(0)) * sizeof(Real));
  }
};

namespace tiled {

inline constexpr std::uint16_t kNoSlot = 0xFFFF;  // a source outside the brick's cube

struct Site {
  int x, y, z;
};

KOKKOS_INLINE_FUNCTION Site site_of(std::int64_t id, int side) {
  const std::int64_t b2 = std::int64_t(side) * side;
  const std::int64_t x = id / b2, rest = id - x * b2, y = rest / side;
  return {static_cast<int>(x), static_cast<int>(y), static_cast<int>(rest - y * side)};
}

// Slot of lattice site s in the cube of the brick holding cell c, or kNoSlot when s lies outside it.
KOKKOS_INLINE_FUNCTION std::uint16_t slot_of(const BrickTiling& t, Site c, Site s) {
  const int r = t.region();
  const int rx = s.x - ((c.x / t.brick) * t.brick - t.halo), ry = s.y - ((c.y / t.brick) * t.brick - t.halo),
            rz = s.z - ((c.z / t.brick) * t.brick - t.halo);
  if (rx < 0 || ry < 0 || rz < 0 || rx >= r || ry >= r || rz >= r) return kNoSlot;
  return static_cast<std::uint16_t>((rx * r + ry) * r + rz);
}

// Count pass (Fill = false): in_offsets(i), out_offsets(i) = the cell's in-cube and out-of-cube junction counts.
// Fill pass: writes both lists in CSR order.
template <class Real, class Mem, bool Fill>
struct SplitRowsFunctor {
  BrickTiling t;
  CsrGapJunctions<Real, Mem> csr;
  Kokkos::View<std::int64_t*, Mem> in_offsets, out_offsets;
  Kokkos::View<std::uint16_t*, Mem> slots;
  Kokkos::View<std::int32_t*, Mem> out_sources;
  Kokkos::View<Real*, Mem> g_in, g_out;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const Site c = site_of(i, t.side);
    std::int64_t n_in = Fill ? in_offsets(i) : 0, n_out = Fill ? out_offsets(i) : 0;
    for (std::int64_t k = csr.offsets(i); k < csr.offsets(i + 1); ++k) {
      const std::int32_t src = csr.sources(k);
      const std::uint16_t slot = slot_of(t, c, site_of(src, t.side));
      if (slot != kNoSlot) {
        if (Fill) {
          slots(n_in) = slot;
          if (csr.g.extent(0) != 0) g_in(n_in) = csr.g(k);
        }
        ++n_in;
      } else {
        if (Fill) {
          out_sources(n_out) = src;
          if (csr.g.extent(0) != 0) g_out(n_out) = csr.g(k);
        }
        ++n_out;
      }
    }
    if (!Fill) {
      in_offsets(i) = n_in;
      out_offsets(i) = n_out;
    }
  }
};

}  // namespace tiled

// The tiled lists of `csr` on Exec (count -> scan -> fill; no host round trip).
template <class Exec, class Real, class Mem = typename Exec::memory_space>
TiledGapJunctions<Real, Mem> build_tiled_gap(const CsrGapJunctions<Real, Mem>& csr, const BrickTiling& t) {
  t.validate();
  if (static_cast<std::int64_t>(csr.offsets.extent(0)) != t.cells + 1)
    throw std::invalid_argument("brick tiling: the CSR has " + std::to_string(csr.offsets.extent(0)) +
                                " offsets for " + std::to_string(t.cells) + " cells");
  const std::int64_t n = t.cells;
  Kokkos::View<std::int64_t*, Mem> in_off("tiled_in_offsets", n + 1), out_off("tiled_out_offsets", n + 1);
  Kokkos::parallel_for("kbrain::olive::tiled_count", Kokkos::RangePolicy<Exec>(0, n),
                       tiled::SplitRowsFunctor<Real, Mem, false>{t, csr, in_off, out_off, {}, {}, {}, {}});
  Kokkos::parallel_scan("kbrain::olive::tiled_scan_in", Kokkos::RangePolicy<Exec>(0, n + 1),
                        netgen::ExclusiveScan<Mem>{in_off});
  Kokkos::parallel_scan("kbrain::olive::tiled_scan_out", Kokkos::RangePolicy<Exec>(0, n + 1),
                        netgen::ExclusiveScan<Mem>{out_off});
  std::int64_t total_in = 0, total_out = 0;
  Kokkos::deep_copy(total_in, Kokkos::subview(in_off, n));
  Kokkos::deep_copy(total_out, Kokkos::subview(out_off, n));
  Kokkos::View<std::uint16_t*, Mem> slots(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tiled_slots"), total_in);
  Kokkos::View<std::int32_t*, Mem> out_src(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tiled_out_sources"),
                                           total_out);
  Kokkos::View<Real*, Mem> g_in, g_out;
  if (csr.g.extent(0) != 0) {
    g_in = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tiled_g_in"), total_in);
    g_out = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tiled_g_out"), total_out);
  }
  Kokkos::parallel_for("kbrain::olive::tiled_fill", Kokkos::RangePolicy<Exec>(0, n),
                       tiled::SplitRowsFunctor<Real, Mem, true>{t, csr, in_off, out_off, slots, out_src, g_in, g_out});
  Exec().fence();
  TiledGapJunctions<Real, Mem> out;
  out.tiling = t;
  out.in_offsets = in_off;
  out.out_offsets = out_off;
  out.slots = slots;
  out.out_sources = out_src;
  out.g_in = g_in;
  out.g_out = g_out;
  out.per_junction_g = csr.g.extent(0) != 0;
  out.g_const = csr.g_const;
  return out;
}

// One team per brick: stage the cube's V_dend in scratch, then one team thread (vector_length lanes) per cell.
// Math: the gap term's exponential (GapKernelMath or GapKernelTableFreeMath); Branchy: TiledKernel's branch per
// junction (io_tiled_kernel.hpp).
template <class Exec, class Real, class Math = GapKernelTableFreeMath, bool Branchy = (sizeof(Real) == 8)>
struct TiledCurrentsFunctor {
  using Mem = typename Exec::memory_space;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Scratch = Kokkos::View<Real*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  TiledGapJunctions<Real, Mem> gap;
  StateView<Real, Mem> cur;
  Kokkos::View<Real*, Mem> out;

  static std::size_t scratch_bytes(const BrickTiling& t) { return Scratch::shmem_size(t.region_sites()); }
  static constexpr int kLanes = GpuLaunch::tiled_lanes;  // the GPU vector length (compute_tiled_gap_currents)
  static constexpr int kUnroll = 4;   // junctions per lane whose loads are in flight together
  KOKKOS_INLINE_FUNCTION static int groups(const int n) { return (n + kLanes * kUnroll - 1) / (kLanes * kUnroll); }
  // Junction t of the lane loop: group t / 32, lane t % 32 (unsigned: shifts and masks).
  KOKKOS_INLINE_FUNCTION static int first_of(const int t) {
    const unsigned ut = static_cast<unsigned>(t);
    return static_cast<int>((ut / kLanes) * (kLanes * kUnroll) + ut % kLanes);
  }

  // Sum of the gap terms of one list of a cell's row (n junctions; neighbour V_dend of junction j from vd_at(j);
  // conductance g_row[j] when PerJunction, else g_const). Each vector lane takes the junctions lane, lane + 32,
  // lane + 64, ... in that order (as a plain ThreadVectorRange over the row with 32 lanes would), kUnroll at a time
  // with their loads issued first (the kernel is bound by the latency of these loads). On a GPU every lane adds its
  // junctions in the same order with or without Branchy.
  template <bool PerJunction, class VdAt>
  KOKKOS_FORCEINLINE_FUNCTION Real row_sum(const Member& team, const int n, const Real vd, const Real* g_row,
                                           const VdAt& vd_at) const {
    Real total = 0;
    const Real g08 = Real(0.8) * gap.g_const, g02 = Real(0.2) * gap.g_const;  // as gap_term computes them
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, kLanes * groups(n)),
        [&](const int t, Real& sum) {
          const int first = first_of(t);
          Real v[kUnroll], g[kUnroll];
          for (int u = 0; u < kUnroll; ++u) {
            const int j = first + u * kLanes;
            // Branch-free, past the row's end: dV = +0, so the term is +0 and the sum unchanged.
            v[u] = j < n ? vd_at(j) : (Branchy ? Real(0) : vd);
            if (PerJunction && !Branchy) g[u] = j < n ? g_row[j] : Real(0);
          }
          for (int u = 0; u < kUnroll; ++u) {
            const int j = first + u * kLanes;
            if (Branchy && !(j < n)) continue;
            if (PerJunction) sum += gap_term<Math>(Branchy ? g_row[j] : g[u], vd - v[u]);
            else sum += gap_term_scaled<Math>(g08, g02, vd - v[u]);
          }
        },
        total);
    return total;
  }
  template <class VdAt>
  KOKKOS_FORCEINLINE_FUNCTION Real row_sum(const Member& team, const int n, const Real vd, const bool per_junction,
                                           const Real* g_row, const VdAt& vd_at) const {
    return per_junction ? row_sum<true>(team, n, vd, g_row, vd_at) : row_sum<false>(team, n, vd, g_row, vd_at);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const BrickTiling t = gap.tiling;
    const int nyz = t.bricks_yz(), brick = team.league_rank();
    const int bx = brick / (nyz * nyz), by = (brick / nyz) % nyz, bz = brick % nyz;
    const int r = t.region(), b = t.side, h = t.halo, edge = t.brick;
    const int ox = bx * edge - h, oy = by * edge - h, oz = bz * edge - h;
    const std::int64_t cells = t.cells;
    Scratch cube(team.team_scratch(0), t.region_sites());

    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, r * r), [&](const int row) {
      const int x = ox + row / r, y = oy + row % r;
      const bool row_in = x >= 0 && y >= 0 && x < b && y < b;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, r), [&](const int rz) {
        const int z = oz + rz;
        Real v = 0;  // sites outside the lattice are never read
        if (row_in && z >= 0 && z < b) {
          const std::int64_t id = (std::int64_t(x) * b + y) * b + z;
          if (id < cells) v = cur(V_DEND, id);
        }
        cube(row * r + rz) = v;
      });
    });
    team.team_barrier();

    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, edge * edge * edge), [&](const int c) {
      const int u = c / (edge * edge), v = (c / edge) % edge, w = c % edge;
      const int x = bx * edge + u, y = by * edge + v, z = bz * edge + w;
      if (x >= b || y >= b || z >= b) return;
      const std::int64_t id = (std::int64_t(x) * b + y) * b + z;
      if (id >= cells) return;
      const Real vd = cube(((u + h) * r + (v + h)) * r + (w + h));
      const bool per_junction = gap.per_junction_g;
      const std::int64_t in_b = gap.in_offsets(id), out_b = gap.out_offsets(id);
      const int n_in = static_cast<int>(gap.in_offsets(id + 1) - in_b);
      const int n_out = static_cast<int>(gap.out_offsets(id + 1) - out_b);
      const std::uint16_t* slot = gap.slots.data() + in_b;
      const std::int32_t* source = gap.out_sources.data() + out_b;
      const Real* g_in = per_junction ? gap.g_in.data() + in_b : nullptr;
      const Real* g_out = per_junction ? gap.g_out.data() + out_b : nullptr;
      const Real in_sum = row_sum(team, n_in, vd, per_junction, g_in, [&](const int j) { return cube(slot[j]); });
      const Real out_sum =
          row_sum(team, n_out, vd, per_junction, g_out, [&](const int j) { return cur(V_DEND, source[j]); });
      Kokkos::single(Kokkos::PerThread(team), [&]() { out(id) = in_sum + out_sum; });
    });
  }
};

}  // namespace kbrain::olive
