// The adex_costa synapse pass on CUDA with the synapse values interleaved against the product's structure of arrays
// (four loads and stores; column pairs for float). Question (issue 21, 10 000² float ≤ 1.0 s): the product's pass
// reads five streams and writes four, and reaches about three quarters of the copy rate, where a copy is one stream
// each way. Does interleaving bring the pass nearer the copy rate, and what does it cost where a synapse needs A
// alone (its column fired or owes m̄, its row is silent)?
// Layouts: `interleaved` (a struct of R, u, U, A per synapse: one 16-byte load and store in float), the same without
// reading the connection byte (`no flag`: every synapse treated as connected, the bound of folding the flag into the
// struct; timing only), and `split` (pairs (R, u) and (U, A): an A-only touch reads 8 bytes, not 16).
// Scenarios: `all` (every row and column fires and owes m̄: the benchmark) and `post only` (no row fires,
// every column fires and owes m̄). The same arithmetic (SynapsePass::apply) and thread mapping (a thread per (row
// block, column), columns padded to whole warps) as the product; each layout's values after 3 passes are compared
// with the product's, bit for bit.
// Built on demand: `cmake --build build/cuda --target adex_layout_probe`.
//   adex_layout_probe [N ...]   (default 10000 20000), float and double
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <vector>

#include "bench/lab/adex_layouts.hpp"
#include "models/adex_costa/adex_synapse_groups.hpp"

namespace {

using namespace kbrain::adex;
using namespace kbrain::adex::probe;

// The pass over a layout: SynapsePass's mapping and arithmetic, the layout's loads and stores.
template <class Real, class Layout, bool ReadFlag = true>
struct LayoutPass {
  SynapsePass<Real, Mem> pass;
  Layout layout;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    const std::int64_t width = gpu_columns(pass.st.n_post), b = k / width, j = k - b * width;
    if (j < pass.st.n_post) walk(b, j);
  }

  KOKKOS_INLINE_FUNCTION void walk(const std::int64_t b, const std::int64_t j) const {
    const ColumnStep c = pass.column(j);
    ColumnScan scan;
    const std::int64_t last = pass.row_end(b);
    for (std::int64_t i = pass.row_begin + b * kRowsPerBlock; i < last; ++i) {
      const bool pre = pass.st.pre_flag(i) != 0;
      if (!(pre || c.post || c.owes)) continue;
      const std::int64_t id = pass.slot(i, j);
      SynapseValues<Real> v;
      v.touched = true;
      v.connected = ReadFlag ? pass.st.conn(pass.flag_slot(i, j)) != 0 : true;
      layout.load(id, pre, v);
      const auto changed = pass.apply(i, pre, c, v, scan);
      if (changed.pre || changed.A) layout.store(id, changed.pre, v);
    }
    pass.store_winner(b, j, scan);  // the m̄ summands are not stored: the product's sum groups need a warp's lanes
  }
};

template <class Real>
void run(std::int64_t n, const char* precision, Scenario scenario) {
  AdexState<Real, Mem> st;
  // columns' flags apart from the rows'; the values in arrays (the layouts below copy them slot by slot), the product's
  // pass run over them
  st.allocate(n, 0, n, n, false, true, -1);
  const auto p = KernelParams<double>::from(AdexCostaParams{}, 1.0);
  const SynapsePass<Real, Mem> pass{st, p, 0, n, true};
  const std::size_t slots = st.R.extent(0);
  const auto product = [&] { launch_gpu_synapse_pass(Exec(), "adex_pass_product", pass, ConnectionRule{}, st.blocks); };
  prepare(st, scenario);
  for (int k = 0; k < 3; ++k) product();
  Kokkos::fence();
  const std::vector<Real> reference = bits(st);

  const Interleaved<Real> interleaved{Kokkos::View<Synapse<Real>*, Mem>("adex_synapses", slots)};
  const Split<Real> split{Kokkos::View<Two<Real>*, Mem>("adex_ru", slots), Kokkos::View<Two<Real>*, Mem>("adex_UA", slots)};
  const Range threads(0, st.blocks * gpu_columns(st.n_post));
  const double synapse_steps = double(n) * double(n);
  auto report = [&](const char* what, double s) {
    std::printf("%-6s n %lld %-9s %-28s %.4f ms per pass, %.3g synapse-steps/s\n", precision,
                static_cast<long long>(n), scenario_name(scenario), what, s * 1e3, synapse_steps / s);
  };
  const LayoutPass<Real, Interleaved<Real>> pass_interleaved{pass, interleaved};
  const LayoutPass<Real, Interleaved<Real>, false> pass_noflag{pass, interleaved};
  const LayoutPass<Real, Split<Real>> pass_split{pass, split};
  const auto launch_interleaved = [&] { Kokkos::parallel_for("adex_pass_interleaved", threads, pass_interleaved); };
  const auto launch_noflag = [&] { Kokkos::parallel_for("adex_pass_noflag", threads, pass_noflag); };
  const auto launch_split = [&] { Kokkos::parallel_for("adex_pass_split", threads, pass_split); };
  check_layout(st, scenario, reference, precision, "interleaved", interleaved, launch_interleaved);
  check_layout(st, scenario, reference, precision, "split", split, launch_split);
  // timed in turn, the product first and last (drift of the machine between the two)
  prepare(st, scenario);
  report("product (arrays)", median_s(product));
  report("interleaved", median_s(launch_interleaved));
  if (scenario == Scenario::All) report("interleaved, no flag", median_s(launch_noflag));
  report("split (R, u) (U, A)", median_s(launch_split));
  report("product again", median_s(product));
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    for_each_case(argc, argv, {10000, 20000}, [](auto real, std::int64_t n, const char* precision, Scenario scenario) {
      run<decltype(real)>(n, precision, scenario);
    });
  }
  Kokkos::finalize();
  return 0;
}
