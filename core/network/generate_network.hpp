#pragma once
// Generates a `uniform` or `gaussian3d` network on an execution space: count pass -> exclusive scan -> fill pass
// (+ transpose for symmetric networks). The result stays in the space's memory (models/olive uploads nothing);
// to_host() copies it into a GapNetwork for tests and small runs. The network is a function of (spec) only: the
// same bits on Serial, OpenMP and CUDA.
#include <cstdint>
#include <type_traits>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "core/network/gap_network.hpp"
#include "core/network/random_network.hpp"
#include "core/network/random_network_kernels.hpp"
#include "core/network/sort_rows.hpp"

namespace kbrain {

template <class Real, class Mem>
struct GeneratedNetwork {
  std::int64_t cells = 0;
  Kokkos::View<std::int64_t*, Mem> offsets;  // cells + 1
  Kokkos::View<std::int32_t*, Mem> sources;
  Kokkos::View<Real*, Mem> g;                // extent 0 => every junction has g_const
  double g_const = 0;
  int lattice_side = 0;  // gaussian3d: cells sit on a cube of this side (id = x*b^2 + y*b + z); 0 otherwise

  std::int64_t junctions() const { return static_cast<std::int64_t>(sources.extent(0)); }
  std::uint64_t bytes() const {
    return offsets.extent(0) * sizeof(std::int64_t) + sources.extent(0) * sizeof(std::int32_t) +
           g.extent(0) * sizeof(Real);
  }

  // A host CSR copied to Mem (conductances converted to Real); the inverse of to_host().
  static GeneratedNetwork from_host(const GapNetwork& h) {
    GeneratedNetwork d;
    d.cells = h.cells;
    d.g_const = h.constant_conductance;
    d.offsets = Kokkos::View<std::int64_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "csr_offsets"),
                                                 h.offsets.size());
    Kokkos::deep_copy(d.offsets, Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                     h.offsets.data(), h.offsets.size()));
    d.sources = Kokkos::View<std::int32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "csr_sources"),
                                                 h.sources.size());
    Kokkos::deep_copy(d.sources, Kokkos::View<const std::int32_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                     h.sources.data(), h.sources.size()));
    if (!h.conductance.empty()) {
      d.g = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "csr_g"), h.conductance.size());
      auto hg = Kokkos::create_mirror_view(d.g);
      for (std::size_t k = 0; k < h.conductance.size(); ++k) hg(k) = Real(h.conductance[k]);
      Kokkos::deep_copy(d.g, hg);
    }
    return d;
  }

  GapNetwork to_host() const {
    GapNetwork net;
    net.cells = cells;
    net.constant_conductance = g.extent(0) == 0 ? g_const : 0.0;
    auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offsets);
    auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sources);
    net.offsets.assign(ho.data(), ho.data() + ho.extent(0));
    net.sources.assign(hs.data(), hs.data() + hs.extent(0));
    if (g.extent(0) != 0) {
      auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g);
      net.conductance.assign(hg.data(), hg.data() + hg.extent(0));
    }
    return net;
  }
};

namespace netgen {

template <class T, class Mem>
Kokkos::View<const T*, Mem> upload(const std::vector<T>& v, const char* label) {
  Kokkos::View<T*, Mem> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), v.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size()));
  return d;
}

template <class Mem>
DeviceTables<Mem> upload_tables(const RandomNetworkTables& t) {
  DeviceTables<Mem> d;
  d.geometric = upload<std::uint64_t, Mem>(t.geometric, "netgen_geometric");
  d.samplers = upload<GeometricSampler, Mem>(t.samplers, "netgen_samplers");
  d.dx = upload<std::int16_t, Mem>(t.dx, "netgen_dx");
  d.dy = upload<std::int16_t, Mem>(t.dy, "netgen_dy");
  d.dz = upload<std::int16_t, Mem>(t.dz, "netgen_dz");
  d.thin = upload<std::uint64_t, Mem>(t.thin, "netgen_thin");
  d.band_begin = upload<std::int64_t, Mem>(t.band_begin, "netgen_band_begin");
  d.band_end = upload<std::int64_t, Mem>(t.band_end, "netgen_band_end");
  d.band_sampler = upload<std::int32_t, Mem>(t.band_sampler, "netgen_band_sampler");
  d.gaussian = t.spec.kind == RandomNetworkSpec::Kind::Gaussian3d;
  d.symmetric = t.spec.symmetric;
  d.g_range = !t.spec.constant_conductance();
  d.cells = t.spec.cells;
  d.side = t.side;
  d.exact_count = t.exact_count;
  d.uniform_sampler = t.uniform_sampler;
  d.seed = t.spec.seed;
  d.g_low_fx = t.g_low_fx;
  d.g_span_fx = t.g_span_fx;
  d.g_scale = t.g_scale;
  return d;
}

// Whether rows are sorted by sort_rows (GPU backends) or by one thread's heap sort (host backends).
template <class Exec>
constexpr bool sort_by_teams() {
  return !std::is_same<typename Exec::memory_space, Kokkos::HostSpace>::value;
}

template <class Mem>
std::int64_t last_entry(const Kokkos::View<std::int64_t*, Mem>& v) {
  std::int64_t total = 0;
  Kokkos::deep_copy(total, Kokkos::subview(v, v.extent(0) - 1));
  return total;
}

// body(0 .. n-1) on a host execution space: OpenMP threads (dynamic schedule) on the OpenMP backend, one thread
// otherwise. Plain loops: a Kokkos host lambda would be compiled as host-device code by nvcc.
template <class Exec, class Body>
void host_for(const std::int64_t n, const Body& body) {
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same<Exec, Kokkos::OpenMP>::value) {
    const int threads = Exec().concurrency();
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (std::int64_t i = 0; i < n; ++i) body(i);
  } else
#endif
  {
    for (std::int64_t i = 0; i < n; ++i) body(i);
  }
}

// Host backends: one pass instead of count + fill. Rows are generated in chunks into per-chunk buffers (a row that
// outgrows its buffer is regrown and repeated: the same draws), then offsets are scanned and the buffers copied in
// order. The rows are the same function of (seed, cell) as the two-pass device sweep, so the network is identical
// (tests/test_generators.cpp checks that); it halves the work where nothing runs in lockstep.
template <class Exec, class Real, class Mem>
GeneratedNetwork<Real, Mem> sweep_host(const DeviceTables<Mem>& t, Kokkos::View<const std::int64_t*, Mem> targets) {
  GeneratedNetwork<Real, Mem> net;
  const std::int64_t rows = targets.extent(0) != 0 ? static_cast<std::int64_t>(targets.extent(0)) : t.cells;
  net.cells = rows;
  net.offsets = Kokkos::View<std::int64_t*, Mem>("netgen_offsets", rows + 1);  // offsets(rows) = 0
  constexpr std::int64_t kChunk = 256;
  const std::int64_t chunks = (rows + kChunk - 1) / kChunk;
  std::vector<std::vector<std::int32_t>> src(static_cast<std::size_t>(chunks));
  std::vector<std::vector<Real>> gs(static_cast<std::size_t>(chunks));
  const auto offsets = net.offsets;
  auto chunk_rows = [&](const std::int64_t c) {
    auto& s = src[c];
    auto& g = gs[c];
    std::int64_t cap = 64;
    for (std::int64_t r = c * kChunk; r < std::min(rows, (c + 1) * kChunk); ++r) {
      const auto used = static_cast<std::int64_t>(s.size());
      while (true) {
        s.resize(static_cast<std::size_t>(used + cap));
        if (t.g_range) g.resize(s.size());
        SweepFunctor<Mem, Real, true> f{t, offsets, Kokkos::View<std::int32_t*, Mem>(s.data(), s.size()),
                                        Kokkos::View<Real*, Mem>(g.data(), g.size()), targets};
        f.capacity = cap;
        const std::int64_t n = f.sweep_row(r, used);
        if (n <= cap) {
          s.resize(static_cast<std::size_t>(used + n));
          if (t.g_range) g.resize(s.size());
          offsets(r) = n;
          cap = std::max<std::int64_t>(64, 2 * n);
          break;
        }
        cap = 2 * n;
      }
    }
  };
  host_for<Exec>(chunks, chunk_rows);
  Kokkos::parallel_scan("kbrain::netgen::scan", Kokkos::RangePolicy<Exec>(0, rows + 1), ExclusiveScan<Mem>{net.offsets});
  const std::int64_t total = last_entry(net.offsets);
  net.sources = Kokkos::View<std::int32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_sources"),
                                                 total);
  if (t.g_range)
    net.g = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_g"), total);
  const auto sources = net.sources;
  const auto gview = net.g;
  auto copy_chunk = [&](const std::int64_t c) {
    const std::int64_t at = offsets(c * kChunk);
    std::copy(src[c].begin(), src[c].end(), sources.data() + at);
    if (t.g_range) std::copy(gs[c].begin(), gs[c].end(), gview.data() + at);
  };
  host_for<Exec>(chunks, copy_chunk);
  Exec().fence();
  return net;
}

// Sweep generators: the directed network (for symmetric: the upper network U).
// rows: all cells (targets empty) or the cells listed in targets.
template <class Exec, class Real, class Mem>
GeneratedNetwork<Real, Mem> sweep(const DeviceTables<Mem>& t,
                                  Kokkos::View<const std::int64_t*, Mem> targets = {}, bool two_pass = false) {
  if constexpr (std::is_same<typename Exec::memory_space, Kokkos::HostSpace>::value)
    if (!two_pass) return sweep_host<Exec, Real, Mem>(t, targets);
  GeneratedNetwork<Real, Mem> net;
  const std::int64_t rows = targets.extent(0) != 0 ? static_cast<std::int64_t>(targets.extent(0)) : t.cells;
  net.cells = rows;
  net.offsets = Kokkos::View<std::int64_t*, Mem>("netgen_offsets", rows + 1);  // offsets(rows) = 0
  Kokkos::parallel_for("kbrain::netgen::count", Kokkos::RangePolicy<Exec>(0, rows),
                       SweepFunctor<Mem, Real, false>{t, net.offsets, {}, {}, targets});
  Kokkos::parallel_scan("kbrain::netgen::scan", Kokkos::RangePolicy<Exec>(0, rows + 1),
                        ExclusiveScan<Mem>{net.offsets});
  const std::int64_t total = last_entry(net.offsets);
  net.sources = Kokkos::View<std::int32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_sources"),
                                                 total);
  if (t.g_range)
    net.g = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_g"), total);
  SweepFunctor<Mem, Real, true> fill{t, net.offsets, net.sources, net.g, targets};
  fill.sort_in_place = false;  // gaussian3d rows: sorted below, one team per row
  Kokkos::parallel_for("kbrain::netgen::fill", Kokkos::RangePolicy<Exec>(0, rows), fill);
  if (t.gaussian)
    sort_rows<Exec, Real, Mem>(Kokkos::View<const std::int64_t*, Mem>(net.offsets), net.sources, net.g, t.g_range);
  return net;
}

// Mode exact into (sources, g) of rows * exact_count entries: on GPU backends draws, sort_rows, then the rest of
// ExactFillFunctor (phases 1, 2); on the host one pass with a heap sort per row. The same rows either way.
template <class Exec, class Real, class Mem>
void exact_fill(const DeviceTables<Mem>& t, const Kokkos::View<const std::int64_t*, Mem>& offsets,
                const Kokkos::View<std::int32_t*, Mem>& sources, const Kokkos::View<Real*, Mem>& g,
                const Kokkos::View<const std::int64_t*, Mem>& targets, const bool by_teams = sort_by_teams<Exec>()) {
  const std::int64_t rows = static_cast<std::int64_t>(offsets.extent(0)) - 1;
  ExactFillFunctor<Mem, Real> fill{t, sources, g, targets};
  if (by_teams) {
    fill.phase = 1;
    Kokkos::parallel_for("kbrain::netgen::exact_draw", Kokkos::RangePolicy<Exec>(0, rows), fill);
    sort_rows<Exec, Real, Mem>(offsets, sources, g, false);
    fill.phase = 2;
  }
  Kokkos::parallel_for("kbrain::netgen::exact_fill", Kokkos::RangePolicy<Exec>(0, rows), fill);
}

template <class Exec, class Real, class Mem>
GeneratedNetwork<Real, Mem> symmetrize(const GeneratedNetwork<Real, Mem>& up, bool g_range) {
  const std::int64_t n = up.cells;
  GeneratedNetwork<Real, Mem> net;
  net.cells = n;
  net.offsets = Kokkos::View<std::int64_t*, Mem>("netgen_sym_offsets", n + 1);
  Kokkos::parallel_for("kbrain::netgen::sym_init", Kokkos::RangePolicy<Exec>(0, n),
                       SegmentLengths<Mem>{up.offsets, net.offsets});
  Kokkos::parallel_for("kbrain::netgen::sym_degree", Kokkos::RangePolicy<Exec>(0, n),
                       netgen::SymmetricDegree<Mem>{up.offsets, up.sources, net.offsets});
  Kokkos::parallel_scan("kbrain::netgen::sym_scan", Kokkos::RangePolicy<Exec>(0, n + 1),
                        ExclusiveScan<Mem>{net.offsets});
  const std::int64_t total = last_entry(net.offsets);
  net.sources = Kokkos::View<std::int32_t*, Mem>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_sym_sources"), total);
  if (g_range)
    net.g = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_sym_g"), total);
  Kokkos::View<std::int64_t*, Mem> cursor(Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_cursor"), n);
  Kokkos::deep_copy(cursor, Kokkos::subview(net.offsets, std::make_pair(std::int64_t(0), n)));
  Kokkos::parallel_for("kbrain::netgen::sym_fill", Kokkos::RangePolicy<Exec>(0, n),
                       SymmetricFill<Mem, Real>{up.offsets, up.sources, up.g, net.offsets, cursor, net.sources,
                                                net.g, g_range});
  if (sort_by_teams<Exec>()) {
    Kokkos::View<std::int64_t*, Mem> lower(Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_sym_lower"), n);
    Kokkos::parallel_for("kbrain::netgen::sym_lower", Kokkos::RangePolicy<Exec>(0, n),
                         LowerPartLengths<Mem>{up.offsets, net.offsets, lower});
    sort_rows<Exec, Real, Mem>(Kokkos::View<const std::int64_t*, Mem>(net.offsets), net.sources, net.g, g_range,
                               kSortRowsCapacity, Kokkos::View<const std::int64_t*, Mem>(lower));
  } else {
    Kokkos::parallel_for("kbrain::netgen::sym_sort", Kokkos::RangePolicy<Exec>(0, n),
                         SortLowerPart<Mem, Real>{up.offsets, net.offsets, net.sources, net.g, g_range});
  }
  return net;
}

}  // namespace netgen

// The network of `tables` (make_random_network_tables) on execution space Exec, conductances as Real.
template <class Exec, class Real, class Mem = typename Exec::memory_space>
GeneratedNetwork<Real, Mem> generate_network(const RandomNetworkTables& tables) {
  const netgen::DeviceTables<Mem> t = netgen::upload_tables<Mem>(tables);
  GeneratedNetwork<Real, Mem> net;
  if (tables.exact_count > 0) {
    net.cells = t.cells;
    const std::int64_t k = t.exact_count, cells = t.cells;
    net.offsets = Kokkos::View<std::int64_t*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_offsets"), cells + 1);
    Kokkos::parallel_for("kbrain::netgen::exact_offsets", Kokkos::RangePolicy<Exec>(0, cells + 1),
                         netgen::EqualSegments<Mem>{net.offsets, k});
    net.sources = Kokkos::View<std::int32_t*, Mem>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_sources"), cells * k);
    if (t.g_range)
      net.g = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_g"), cells * k);
    netgen::exact_fill<Exec, Real, Mem>(t, net.offsets, net.sources, net.g, {});
  } else {
    net = netgen::sweep<Exec, Real, Mem>(t);
    if (tables.spec.symmetric) net = netgen::symmetrize<Exec, Real, Mem>(net, t.g_range);
  }
  net.g_const = tables.spec.constant_conductance() ? tables.spec.g_low : 0.0;
  if (t.gaussian) net.lattice_side = static_cast<int>(t.side);
  Exec().fence();
  return net;
}

// Only the rows of the cells in `targets` (global ids, any order, no repeats): row k of the result is exactly row
// targets[k] of generate_network(tables) (same sources, same order, same conductances), because each directed row
// is a function of (seed, cell) only. This is how each MPI rank generates its own cells' incoming junctions
// (docs/mpi.md). Symmetric networks need the other cells' upper lists too: they are generated whole and the rows
// picked (O(N * density) work and memory on every rank; documented limitation).
template <class Exec, class Real, class Mem = typename Exec::memory_space>
GeneratedNetwork<Real, Mem> generate_network_rows(const RandomNetworkTables& tables,
                                                  const std::vector<std::int64_t>& targets) {
  for (auto c : targets)
    if (c < 0 || c >= tables.spec.cells)
      throw std::invalid_argument("generate_network_rows: cell " + std::to_string(c) + " out of range");
  GeneratedNetwork<Real, Mem> net;
  net.g_const = tables.spec.constant_conductance() ? tables.spec.g_low : 0.0;
  if (targets.empty()) {
    net.offsets = Kokkos::View<std::int64_t*, Mem>("netgen_offsets", 1);
    return net;
  }
  const netgen::DeviceTables<Mem> t = netgen::upload_tables<Mem>(tables);
  const auto rows = static_cast<std::int64_t>(targets.size());
  const auto dtargets = netgen::upload<std::int64_t, Mem>(targets, "netgen_targets");
  if (tables.spec.symmetric) {
    const auto full = generate_network<Exec, Real, Mem>(tables).to_host();
    GapNetwork sub;
    sub.offsets.assign(1, 0);
    for (auto c : targets) {
      for (std::int64_t k = full.offsets[c]; k < full.offsets[c + 1]; ++k) {
        sub.sources.push_back(full.sources[k]);
        if (!full.conductance.empty()) sub.conductance.push_back(full.conductance[k]);
      }
      sub.offsets.push_back(static_cast<std::int64_t>(sub.sources.size()));
    }
    sub.cells = rows;
    net = GeneratedNetwork<Real, Mem>::from_host(sub);
  } else if (tables.exact_count > 0) {
    const std::int64_t k = tables.exact_count;
    net.cells = rows;
    net.offsets = Kokkos::View<std::int64_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_offsets"),
                                                   rows + 1);
    Kokkos::parallel_for("kbrain::netgen::exact_offsets", Kokkos::RangePolicy<Exec>(0, rows + 1),
                         netgen::EqualSegments<Mem>{net.offsets, k});
    net.sources = Kokkos::View<std::int32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_sources"),
                                                   rows * k);
    if (t.g_range)
      net.g = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "netgen_g"), rows * k);
    netgen::exact_fill<Exec, Real, Mem>(t, net.offsets, net.sources, net.g, dtargets);
  } else {
    net = netgen::sweep<Exec, Real, Mem>(t, dtargets);
  }
  net.g_const = tables.spec.constant_conductance() ? tables.spec.g_low : 0.0;
  Exec().fence();
  return net;
}

}  // namespace kbrain
