#pragma once
// Lab: the AdEx synapse values in tiles (an array of structures of arrays, as Cabana's AoSoA): each row is a run of
// tiles of T columns, a tile holds R[T], u[T], U[T], A[T] one after the other. Question (issue 21, 10 000² float
// ≤ 1.0 s): interleaving a synapse's four values brought the pass nearer the copy rate, but an A-only touch (a column
// fired, its row did not) then fetched all four (bench/README.md, "interleaved synapse values"). In tiles, a warp's
// four loads of a row fall in one contiguous stretch of memory, as interleaved, while an A-only touch still reads A
// alone, as arrays. The group pass is the product's (SynapsePassGroups, same arithmetic, same order): only slot(i, j)
// differs, and with the state's R, u, U, A pointed at offsets 0, T, 2T, 3T of one buffer, each group load lands on
// its variable's run of the tile.
// Also here: the access pattern alone (StreamBound: the group pass's thread mapping and loads and stores, the values
// incremented instead of updated), the bound any arithmetic over the same layout can reach.
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include "bench/lab/adex_probe_support.hpp"
#include "models/adex_costa/adex_synapse_groups.hpp"

namespace kbrain::adex::lab {

// A tiled row's columns: n_post rounded up to whole tiles.
template <int T>
inline std::int64_t tiled_pitch(std::int64_t n_post) {
  return (n_post + T - 1) / T * T;
}

// SynapsePass with tiled slots: the slot of R; u, U and A are T, 2T and 3T further (the state's views start there).
template <class Real, class Mem, int T>
struct TiledPass : SynapsePass<Real, Mem> {
  std::int64_t tiled = 0;  // tiled_pitch(n_post)
  KOKKOS_INLINE_FUNCTION std::int64_t slot(std::int64_t i, std::int64_t j) const {
    return (i - this->row_begin) * 4 * tiled + (j / T) * (4 * T) + (j % T);
  }
};

// The tiled values of a state: one buffer of rows × 4 × tiled_pitch; `view(st)` gives a copy of `st` whose R, u, U, A
// are unmanaged views into it at offsets 0, T, 2T, 3T.
template <class Real, class Mem, int T>
struct TiledValues {
  Kokkos::View<Real*, Mem> buffer;
  std::int64_t tiled = 0;

  explicit TiledValues(const AdexState<Real, Mem>& st)
      : buffer("adex_tiled", st.rows * 4 * tiled_pitch<T>(st.n_post)), tiled(tiled_pitch<T>(st.n_post)) {}

  AdexState<Real, Mem> view(const AdexState<Real, Mem>& st) const {
    AdexState<Real, Mem> t = st;
    const std::int64_t n = std::int64_t(buffer.extent(0)) - 3 * T;
    t.R = Kokkos::View<Real*, Mem>(buffer.data(), n);
    t.u = Kokkos::View<Real*, Mem>(buffer.data() + T, n);
    t.U = Kokkos::View<Real*, Mem>(buffer.data() + 2 * T, n);
    t.A = Kokkos::View<Real*, Mem>(buffer.data() + 3 * T, n);
    return t;
  }

  // The probe's fill (probe::fill with every synapse connected), the value of (i, j) being the one the arrays' fill
  // gives the array slot i * pitch + j; the padding columns too.
  void fill(const AdexState<Real, Mem>& st) const {
    AdexState<Real, Mem> flags = st;  // views: a shallow copy
    probe::fill(flags, true);  // the flags and per-neuron values (and the arrays, unused here)
    const auto buf = buffer;
    const std::int64_t tp = tiled, pitch = st.pitch;
    Kokkos::parallel_for(
        "fill_tiled", probe::Range(0, st.rows * tp), KOKKOS_LAMBDA(const std::int64_t k) {
          const std::int64_t i = k / tp, j = k - i * tp, id = i * pitch + j;
          const std::int64_t at = i * 4 * tp + (j / T) * (4 * T) + (j % T);
          buf(at) = Real(0.9);
          buf(at + T) = Real(0.2);
          buf(at + 2 * T) = Real(0.3);
          buf(at + 3 * T) = Real(0.5 + 1e-9 * double(id % 1000));
        });
    Kokkos::fence();
  }

  // R, u, U, A of the real columns, in that order, row by row (as real_bits gives the arrays').
  std::vector<Real> bits(const AdexState<Real, Mem>& st) const {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), buffer);
    std::vector<Real> out;
    for (int v = 0; v < 4; ++v)
      for (std::int64_t i = 0; i < st.rows; ++i)
        for (std::int64_t j = 0; j < st.n_post; ++j) out.push_back(h(i * 4 * tiled + (j / T) * (4 * T) + v * T + j % T));
    return out;
  }
};

// A state's R, u, U, A of the real columns (probe::bits without the padding), in TiledValues::bits' order.
template <class Real, class Mem>
std::vector<Real> real_bits(const AdexState<Real, Mem>& st) {
  const std::vector<Real> all = probe::bits(st);
  const std::int64_t slots = st.rows * st.pitch;
  std::vector<Real> out;
  for (int v = 0; v < 4; ++v)
    for (std::int64_t i = 0; i < st.rows; ++i)
      for (std::int64_t j = 0; j < st.n_post; ++j) out.push_back(all[std::size_t(v * slots + i * st.pitch + j)]);
  return out;
}

// The access pattern alone: SynapsePassGroups' thread mapping (a thread per (row block, G columns), columns padded to
// whole warps) and its loads and stores of the four values, two rows in flight, each value plus one; `Pass` places
// the slots.
template <class Real, class Mem, int G, class Pass>
struct StreamBound {
  Pass pass;
  KOKKOS_INLINE_FUNCTION std::int64_t groups() const { return (pass.st.n_post + G - 1) / G; }
  std::int64_t launch_size(std::int64_t blocks) const { return blocks * gpu_columns(groups()); }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    const std::int64_t width = gpu_columns(groups()), b = k / width, q = k - b * width;
    if (q >= groups()) return;
    const std::int64_t j = G * q, last = pass.row_end(b);
    const auto& st = pass.st;
    for (std::int64_t i = pass.row_begin + b * kRowsPerBlock; i < last; i += 2) {
      GroupOf<Real, G> v[2][4];
      const std::int64_t rows = i + 1 < last ? 2 : 1;
      for (int r = 0; r < rows; ++r) {
        const std::int64_t id = pass.slot(i + r, j);
        v[r][0] = load_group<G>(st.R.data() + id), v[r][1] = load_group<G>(st.u.data() + id);
        v[r][2] = load_group<G>(st.U.data() + id), v[r][3] = load_group<G>(st.A.data() + id);
      }
      for (int r = 0; r < rows; ++r) {
        for (int a = 0; a < 4; ++a)
          for (int g = 0; g < G; ++g) v[r][a].v[g] += Real(1);
        const std::int64_t id = pass.slot(i + r, j);
        store_group<G>(st.R.data() + id, v[r][0]), store_group<G>(st.u.data() + id, v[r][1]);
        store_group<G>(st.U.data() + id, v[r][2]), store_group<G>(st.A.data() + id, v[r][3]);
      }
    }
  }
};

}  // namespace kbrain::adex::lab
