#pragma once
// Lab: the AdEx pass's access pattern alone (StreamBound: the group pass's thread mapping and its loads and stores of
// R, u, U, A, each value plus one instead of updated), over the slots of any state's layout (arrays or tiles): the
// bound any arithmetic over that layout can reach (bench/README.md, "tiles"). The tiles themselves are the product's
// (adex_state.hpp); the lab's own tiles, probed before the product had them, are in 8b991eb.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "models/adex_costa/adex_synapse_groups.hpp"

namespace kbrain::adex::lab {

// A thread per (row block, G columns), columns padded to whole warps, two rows in flight; `pass` places the slots.
template <class Real, class Mem, int G>
struct StreamBound {
  SynapsePass<Real, Mem> pass;
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
