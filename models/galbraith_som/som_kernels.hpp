#pragma once
// The SOM's device code, written once for every backend: the (distance, index) reducer whose ties resolve to the
// lowest index, and the two launches that train a chunk of inputs with the result of training them one at a time.
// Functors rather than lambdas, so that the same code compiles for the host backends and under nvcc.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "core/rng/counter_rng.hpp"

namespace kbrain::galbraith {

// A candidate best-matching unit: its squared distance and its neuron index.
template <class Real>
struct SomBest {
  Real value;
  std::int32_t index;
  // No candidate: worse than any finite distance (the reducers' identity).
  KOKKOS_INLINE_FUNCTION static SomBest none() { return {Kokkos::reduction_identity<Real>::min(), 2147483647}; }
};

// Whether candidate (v, i) beats (best_v, best_i): the lower distance, of equal distances the lower index.
template <class Real>
KOKKOS_INLINE_FUNCTION bool som_better(Real v, std::int32_t i, Real best_v, std::int32_t best_i) {
  return v < best_v || (v == best_v && i < best_i);
}

// Lexicographic minimum of (value, index): of equal distances the lowest index wins, whatever order the backend
// joins partial results in (Kokkos' MinLoc keeps whichever it meets first, which differs between backends and
// thread counts). Follows Kokkos 3.4's reducer concept (join, volatile join, init, reference, view).
template <class Real, class Space>
struct SomBestReducer {
  using reducer = SomBestReducer<Real, Space>;
  using value_type = SomBest<Real>;
  using result_view_type = Kokkos::View<value_type, Space>;

 private:
  result_view_type value_;
  bool references_scalar_v_;

 public:
  KOKKOS_INLINE_FUNCTION SomBestReducer(value_type& v) : value_(&v), references_scalar_v_(true) {}
  KOKKOS_INLINE_FUNCTION SomBestReducer(const result_view_type& v) : value_(v), references_scalar_v_(false) {}

  KOKKOS_INLINE_FUNCTION static bool better(Real v, std::int32_t i, Real best_v, std::int32_t best_i) {
    return som_better(v, i, best_v, best_i);
  }
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const {
    if (better(src.value, src.index, dest.value, dest.index)) dest = src;
  }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest, const volatile value_type& src) const {
    if (better(src.value, src.index, dest.value, dest.index)) {
      dest.value = src.value;
      dest.index = src.index;
    }
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = value_type::none(); }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *value_.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return value_; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return references_scalar_v_; }
};

// b becomes c where c is the better candidate.
template <class Real>
KOKKOS_INLINE_FUNCTION void som_keep_better(SomBest<Real>& b, const SomBest<Real>& c) {
  if (som_better(c.value, c.index, b.value, b.index)) b = c;
}

// The minimum of the candidates a team's threads hold, for every thread of the team. The scratch (one slot per
// thread) is in use until the team's next barrier. The minimum is a total order: any grouping gives the same result.
//  - CUDA, teams of whole warps: each warp folds its 32 candidates by shuffles, its first lane puts the warp's
//    minimum in the scratch, and after one barrier every warp folds those (at most 32) the same way.
//  - otherwise: each thread's candidate goes into the scratch, the first 32 threads fold strided slices, every thread
//    folds those 32.
#if defined(__CUDA_ARCH__)
template <class Real>
__device__ inline SomBest<Real> som_warp_minimum(SomBest<Real> b) {
  for (int offset = 16; offset > 0; offset /= 2)
    som_keep_better(b, SomBest<Real>{__shfl_down_sync(0xffffffffu, b.value, offset),
                                     __shfl_down_sync(0xffffffffu, b.index, offset)});
  return SomBest<Real>{__shfl_sync(0xffffffffu, b.value, 0), __shfl_sync(0xffffffffu, b.index, 0)};
}
#endif
template <class Real, class Member, class Scratch>
KOKKOS_INLINE_FUNCTION SomBest<Real> som_team_minimum(const Member& team, const Scratch& scratch,
                                                      const SomBest<Real>& mine) {
  const int rank = team.team_rank(), size = team.team_size(), lanes = size < 32 ? size : 32;
#if defined(__CUDA_ARCH__)
  // a team of vector length 1: its threads are the lanes of its warps in rank order
  if (size % 32 == 0) {
    const SomBest<Real> warp_best = som_warp_minimum(mine);
    if (rank % 32 == 0) scratch(rank / 32) = warp_best;
    team.team_barrier();
    return som_warp_minimum(rank % 32 < size / 32 ? scratch(rank % 32) : SomBest<Real>::none());
  }
#endif
  scratch(rank) = mine;
  team.team_barrier();
  if (rank < lanes) {
    SomBest<Real> m = scratch(rank);
    for (int q = rank + lanes; q < size; q += lanes) som_keep_better(m, scratch(q));
    scratch(rank) = m;
  }
  team.team_barrier();
  SomBest<Real> b = scratch(0);
  for (int q = 1; q < lanes; ++q) som_keep_better(b, scratch(q));
  return b;
}

// The BMU digest: FNV-1a over the sequence of BMU indices (order-sensitive), 53 bits reported so it fits a double.
inline constexpr std::uint64_t kSomDigestStart = 0xcbf29ce484222325ull;
KOKKOS_INLINE_FUNCTION std::uint64_t som_digest_fold(std::uint64_t h, std::int32_t bmu) {
  return (h ^ static_cast<std::uint64_t>(static_cast<std::uint32_t>(bmu))) * 0x100000001b3ull;
}

// Channel c of neuron n's initial weight: floor(256 u) / 255, u = counter_uniform(seed, n, c) (the study's
// (rand() % 256) / 255, keyed so every backend draws the same byte).
template <class Real>
KOKKOS_INLINE_FUNCTION Real som_initial_weight(std::uint64_t seed, std::int64_t n, int c) {
  const auto k = static_cast<int>(counter_uniform(seed, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(c)) * 256.0);
  return Real(k) / Real(255);
}

// Which neurons an input's update reaches, for one pass: the window |u|, |v| <= half, or the disc u^2 + v^2 < r2.
// reach: the half-width of the square that holds every neuron the rule reaches (the update's bounding box).
struct SomRule {
  bool disc = false;
  int half = 2;
  double r2 = 256;
  int reach = 2;
  KOKKOS_INLINE_FUNCTION bool inside(std::int64_t u, std::int64_t v) const {
    if (disc) return double(u * u + v * v) < r2;
    return u <= half && u >= -half && v <= half && v >= -half;
  }
};

template <class Real, class Mem>
struct SomWeights {
  Kokkos::View<Real*, Mem> r, g, b;
};

// Input pixel k of the picture (3 bytes a pixel, BMP file order) as (R, G, B) / 255.
template <class Real, class Mem>
struct SomPixel {
  Real r, g, b;
  KOKKOS_INLINE_FUNCTION SomPixel(const Kokkos::View<const std::uint8_t*, Mem>& image, std::int64_t k)
      : r(Real(image(3 * k)) / Real(255)), g(Real(image(3 * k + 1)) / Real(255)), b(Real(image(3 * k + 2)) / Real(255)) {}
};

// The squared distance of weights (r, g, b) to pixel p, and the update w += alpha (p - w): the one expression of
// each that every strategy uses, so a recomputed distance is the bits of the first one.
template <class Real, class Mem>
KOKKOS_INLINE_FUNCTION Real som_distance(Real r, Real g, Real b, const SomPixel<Real, Mem>& p) {
  const Real dr = r - p.r, dg = g - p.g, db = b - p.b;
  return dr * dr + dg * dg + db * db;
}
template <class Real, class Mem>
KOKKOS_INLINE_FUNCTION Real som_distance(const SomWeights<Real, Mem>& w, std::int64_t n, const SomPixel<Real, Mem>& p) {
  return som_distance(w.r(n), w.g(n), w.b(n), p);
}
template <class Real, class Mem>
KOKKOS_INLINE_FUNCTION void som_update(Real& r, Real& g, Real& b, const SomPixel<Real, Mem>& p, Real alpha) {
  r += alpha * (p.r - r);
  g += alpha * (p.g - g);
  b += alpha * (p.b - b);
}

// Neuron n's weights, first moved toward p and written back when `update`: the values its distance is taken from
// next (kept in registers, not read again).
template <class Real>
struct SomRgb {
  Real r, g, b;
};
template <class Real, class Mem>
KOKKOS_INLINE_FUNCTION SomRgb<Real> som_weights_after(const SomWeights<Real, Mem>& w, std::int64_t n, bool update,
                                                      const SomPixel<Real, Mem>& p, Real alpha) {
  SomRgb<Real> c{w.r(n), w.g(n), w.b(n)};
  if (update) {
    som_update(c.r, c.g, c.b, p, alpha);
    w.r(n) = c.r;
    w.g(n) = c.g;
    w.b(n) = c.b;
  }
  return c;
}

// Fills the weights from the counter RNG.
template <class Real, class Mem>
struct SomInit {
  SomWeights<Real, Mem> w;
  std::uint64_t seed;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t n) const {
    w.r(n) = som_initial_weight<Real>(seed, n, 0);
    w.g(n) = som_initial_weight<Real>(seed, n, 1);
    w.b(n) = som_initial_weight<Real>(seed, n, 2);
  }
};

// The grid cut into tiles of side x side neurons (the last row and column of tiles clipped to the grid). A tile's
// neurons in ascending index order: its rows bottom up, each left to right.
struct SomTiles {
  std::int64_t width = 1, height = 1;
  int side = 8;
  std::int64_t across = 1, down = 1;  // tiles per grid row, per grid column

  static SomTiles of(std::int64_t width, std::int64_t height, int side) {
    return SomTiles{width, height, side, (width + side - 1) / side, (height + side - 1) / side};
  }
  KOKKOS_INLINE_FUNCTION std::int64_t count() const { return across * down; }
  KOKKOS_INLINE_FUNCTION int cells() const { return side * side; }
  // Neuron of cell c (0 <= c < side^2) of tile t, or -1 where the cell lies beyond the grid's edge.
  KOKKOS_INLINE_FUNCTION std::int64_t neuron(std::int64_t t, int c) const {
    const std::int64_t x = (t % across) * side + c % side, y = (t / across) * side + c / side;
    return x < width && y < height ? y * width + x : -1;
  }
};

// Chunks: a run of consecutive inputs (within one pass, so one rule) is trained in two launches with the result of
// training them one at a time, bit for bit:
//  1. SomChunkTiles: for every input j of the chunk and every tile t, the (distance, index) minimum of the tile's
//     neurons at the weights the chunk starts from (one pass over the weights for the whole chunk);
//  2. SomChunkResolve: one team takes the inputs in order. Input j's BMU is the minimum of the minima of the tiles
//     no earlier input of the chunk has updated (their weights are still the chunk's first ones) and of the
//     distances of the neurons of the tiles that were updated (recomputed from the current weights). The team then
//     updates the neighbourhood and marks its tiles. The lexicographic minimum is a total order, so grouping the
//     neurons by tiles finds the BMU a scan of every neuron finds.
// One pass over the weights serves the whole chunk, which is what CPUs gain; on a GPU the one resolving team is
// slower than a launch per input (som_step_kernels.hpp), measured in docs/models/galbraith-som.md.

// 1. Index i = t * inputs + j (the inputs of one tile adjacent, so they read the tile's weights together).
template <class Real, class Mem>
struct SomChunkTiles {
  SomWeights<Real, Mem> w;
  Kokkos::View<const std::uint8_t*, Mem> image;
  Kokkos::View<SomBest<Real>**, Kokkos::LayoutRight, Mem> tile_best;  // (input of the chunk, tile)
  SomTiles tiles;
  std::int64_t first_pixel = 0;
  int inputs = 1;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t t = i / inputs;
    const int j = static_cast<int>(i - t * inputs);
    const SomPixel<Real, Mem> p(image, first_pixel + j);
    SomBest<Real> best = SomBest<Real>::none();
    const std::int64_t x0 = (t % tiles.across) * tiles.side, y0 = (t / tiles.across) * tiles.side;
    const std::int64_t x1 = x0 + tiles.side < tiles.width ? x0 + tiles.side : tiles.width;
    const std::int64_t y1 = y0 + tiles.side < tiles.height ? y0 + tiles.side : tiles.height;
    for (std::int64_t y = y0; y < y1; ++y)
      for (std::int64_t n = y * tiles.width + x0; n < y * tiles.width + x1; ++n) {
        const Real d = som_distance(w, n, p);
        if (d < best.value) {  // ascending n: of equal distances the first (lowest index) stays
          best.value = d;
          best.index = static_cast<std::int32_t>(n);
        }
      }
    tile_best(j, t) = best;
  }
};

// 2. One team; its scratch holds a bit per tile (updated in this chunk) and the list of those tiles.
template <class Real, class Exec>
struct SomChunkResolve {
  using Mem = typename Exec::memory_space;
  using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
  using Scratch = typename Exec::scratch_memory_space;
  using Words = Kokkos::View<std::uint32_t*, Scratch, Kokkos::MemoryUnmanaged>;
  using Ints = Kokkos::View<int*, Scratch, Kokkos::MemoryUnmanaged>;
  using Bests = Kokkos::View<SomBest<Real>*, Scratch, Kokkos::MemoryUnmanaged>;
  static constexpr int kBatch = 8;

  SomWeights<Real, Mem> w;
  Kokkos::View<const std::uint8_t*, Mem> image;
  Kokkos::View<const SomBest<Real>**, Kokkos::LayoutRight, Mem> tile_best;
  Kokkos::View<std::uint64_t, Mem> digest;  // FNV-1a of every BMU so far, in order
  Kokkos::View<std::int32_t, Mem> last;     // the BMU of the chunk's last input
  SomTiles tiles;
  SomRule rule;
  Real alpha = Real(0.05);
  std::int64_t first_pixel = 0;
  int inputs = 1;
  int list_capacity = 1;  // at least inputs * the tiles one update can reach

  KOKKOS_INLINE_FUNCTION static int words(const SomTiles& t) { return static_cast<int>((t.count() + 31) / 32); }
  static std::size_t scratch_bytes(const SomTiles& t, int list_capacity, int team_size) {
    return Words::shmem_size(words(t)) + Ints::shmem_size(list_capacity + 1) + Bests::shmem_size(team_size);
  }

  // Candidate k of input j: a tile's minimum at the chunk's first weights if no update has reached the tile
  // (k < T), else a neuron of an updated tile at the current weights; none (the identity) otherwise.
  KOKKOS_INLINE_FUNCTION SomBest<Real> candidate(std::int64_t k, int j, std::int64_t items, const SomPixel<Real, Mem>& p,
                                                 const Words& marked, const Ints& list) const {
    const SomBest<Real> none = SomBest<Real>::none();
    const std::int64_t T = tiles.count();
    if (k >= items) return none;
    if (k < T) return (marked(k / 32) & (std::uint32_t(1) << (k % 32))) ? none : tile_best(j, k);
    const int cells = tiles.cells();
    const std::int64_t c = k - T;
    const std::int64_t n = tiles.neuron(list(1 + static_cast<int>(c / cells)), static_cast<int>(c % cells));
    if (n < 0) return none;
    return SomBest<Real>{som_distance(w, n, p), static_cast<std::int32_t>(n)};
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    Words marked(team.team_scratch(0), words(tiles));
    Ints list(team.team_scratch(0), list_capacity + 1);  // list(0): the count; list(1 + k): the k-th tile
    Bests partial(team.team_scratch(0), team.team_size());
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, words(tiles)), [&](const int k) { marked(k) = 0; });
    Kokkos::single(Kokkos::PerTeam(team), [&]() { list(0) = 0; });
    team.team_barrier();
    const std::int64_t T = tiles.count();
    const int rank = team.team_rank(), size = team.team_size();
    std::uint64_t h = digest();  // used by one thread
    std::int32_t bmu = -1;
    for (int j = 0; j < inputs; ++j) {
      const SomPixel<Real, Mem> p(image, first_pixel + j);
      const std::int64_t items = T + std::int64_t(list(0)) * tiles.cells();
      // Each thread takes every size-th candidate, kBatch loads in flight before it compares them (the loads are
      // independent; issued one after the other they would cost a memory latency each).
      SomBest<Real> mine = SomBest<Real>::none();
      for (std::int64_t base = rank; base < items; base += std::int64_t(size) * kBatch) {
        SomBest<Real> c[kBatch];
        for (int b = 0; b < kBatch; ++b) c[b] = candidate(base + std::int64_t(b) * size, j, items, p, marked, list);
        for (int b = 0; b < kBatch; ++b) som_keep_better(mine, c[b]);
      }
      bmu = som_team_minimum(team, partial, mine).index;  // partial is free again after the loop's last barrier
      if (bmu >= 0 && bmu < tiles.width * tiles.height) {  // else no finite distance (NaN weights): no update
        const std::int64_t bx = bmu % tiles.width, by = bmu / tiles.width, box = 2 * rule.reach + 1;
        // The update inside the rule around the BMU, within the grid.
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, box * box), [&](const std::int64_t k) {
          const std::int64_t u = k % box - rule.reach, v = k / box - rule.reach, x = bx + u, y = by + v;
          if (x < 0 || y < 0 || x >= tiles.width || y >= tiles.height || !rule.inside(u, v)) return;
          (void)som_weights_after(w, y * tiles.width + x, true, p, alpha);
        });
        // Its tiles: those of the bounding box, clipped to the grid (a superset of the neurons updated).
        const std::int64_t tx0 = (bx - rule.reach > 0 ? bx - rule.reach : 0) / tiles.side;
        const std::int64_t ty0 = (by - rule.reach > 0 ? by - rule.reach : 0) / tiles.side;
        const std::int64_t tx1 = (bx + rule.reach < tiles.width ? bx + rule.reach : tiles.width - 1) / tiles.side;
        const std::int64_t ty1 = (by + rule.reach < tiles.height ? by + rule.reach : tiles.height - 1) / tiles.side;
        const std::int64_t nx = tx1 - tx0 + 1;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nx * (ty1 - ty0 + 1)), [&](const std::int64_t k) {
          const std::int64_t t = (ty0 + k / nx) * tiles.across + tx0 + k % nx;
          const std::uint32_t bit = std::uint32_t(1) << (t % 32);
          if ((Kokkos::atomic_fetch_or(&marked(t / 32), bit) & bit) == 0)
            list(1 + Kokkos::atomic_fetch_add(&list(0), 1)) = static_cast<int>(t);
        });
      }
      Kokkos::single(Kokkos::PerTeam(team), [&]() { h = som_digest_fold(h, bmu); });
      team.team_barrier();
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      digest() = h;
      last() = bmu;
    });
  }
};

// What samplers read (models/common/device_sampler.hpp): a weight channel.
template <class Real, class Mem>
struct SomReader {
  SomWeights<Real, Mem> w;
  KOKKOS_INLINE_FUNCTION Real operator()(int var, std::int64_t i) const {
    return var == 0 ? w.r(i) : var == 1 ? w.g(i) : w.b(i);
  }
};

}  // namespace kbrain::galbraith
