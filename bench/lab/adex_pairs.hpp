#pragma once
// Lab only (adex_pass_probe): the dense AdEx synapse pass with a column pair per GPU thread, the product's float pass
// until the column groups (models/adex_costa/adex_synapse_groups.hpp) replaced it; kept as the probe's reference
// (bench/README.md, "Column groups").
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "models/adex_costa/adex_synapse_pass.hpp"

namespace kbrain::adex::probe {

// Two neighbouring values, loaded or stored by one memory access (columns j, j + 1 with j even; n_post and the row
// pitch even, so the pair never straddles a row and is aligned to its size).
template <class T>
struct alignas(2 * sizeof(T)) TwoOf {
  T first, second;
};
template <class T>
KOKKOS_FORCEINLINE_FUNCTION TwoOf<T> load_two(const T* at) {
  return *reinterpret_cast<const TwoOf<T>*>(at);
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void store_two(T* at, T first, T second) {
  *reinterpret_cast<TwoOf<T>*>(at) = TwoOf<T>{first, second};
}

// GPUs, float: a thread per (block, pair of columns). A float row segment of one warp is then 256 bytes per array
// instead of 128, as double's is: the pass is limited by its memory accesses more than by their bytes (the A/B is
// in bench/README.md). Each column's
// arithmetic and its rows' order are SynapsePass's, so the bits are too; a pair whose one column is untouched or
// unconnected stores that column's values back unchanged (the thread owns both).
template <class Real, class Mem>
struct SynapsePassPairs {
  SynapsePass<Real, Mem> pass;

  static bool fits(std::int64_t n_post) { return n_post % 2 == 0; }

  // k = (block, pair), a block's pairs padded to whole warps as SynapsePass's columns are.
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    const std::int64_t pairs = pass.st.n_post / 2, width = gpu_columns(pairs), b = k / width, q = k - b * width;
    if (q < pairs) walk(b, 2 * q);
  }
  std::int64_t launch_size(std::int64_t blocks) const { return blocks * gpu_columns(pass.st.n_post / 2); }

  KOKKOS_INLINE_FUNCTION void walk(const std::int64_t b, const std::int64_t j) const {
    const auto& st = pass.st;
    const ColumnStep c0 = pass.column(j), c1 = pass.column(j + 1);
    const bool col0 = c0.post || c0.owes, col1 = c1.post || c1.owes;
    ColumnScan scan0, scan1;
    const std::int64_t last = pass.row_end(b);
    for (std::int64_t i = pass.row_begin + b * kRowsPerBlock; i < last; ++i) {
      const bool pre = st.pre_flag(i) != 0;
      if (!(pre || col0 || col1)) continue;
      const std::int64_t id = pass.slot(i, j);
      const TwoOf<std::uint8_t> conn = load_two(st.conn.data() + pass.flag_slot(i, j));
      const TwoOf<Real> A = load_two(st.A.data() + id);
      SynapseValues<Real> v0, v1;
      v0.touched = pre || col0, v0.connected = conn.first != 0, v0.A = A.first;
      v1.touched = pre || col1, v1.connected = conn.second != 0, v1.A = A.second;
      if (pre) {
        const TwoOf<Real> U = load_two(st.U.data() + id), R = load_two(st.R.data() + id), u = load_two(st.u.data() + id);
        v0.U = U.first, v0.R = R.first, v0.u = u.first;
        v1.U = U.second, v1.R = R.second, v1.u = u.second;
      }
      const auto ch0 = pass.apply(i, pre, c0, v0, scan0);
      const auto ch1 = pass.apply(i, pre, c1, v1, scan1);
      if (ch0.pre || ch1.pre) {
        store_two(st.R.data() + id, v0.R, v1.R);
        store_two(st.u.data() + id, v0.u, v1.u);
        store_two(st.U.data() + id, v0.U, v1.U);
      }
      if (ch0.A || ch1.A) store_two(st.A.data() + id, v0.A, v1.A);
    }
    pass.store_winner(b, j, scan0);  // the m̄ summands are not stored: the product's sum groups need a warp's lanes
    pass.store_winner(b, j + 1, scan1);
  }
};

}  // namespace kbrain::adex::probe
