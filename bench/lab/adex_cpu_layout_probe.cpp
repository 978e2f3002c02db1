// The adex_costa synapse pass on the host (the CPU loop order, SynapsePassChunked) over the product's arrays against
// the two layouts adex_layout_probe times on GPUs: a struct of R, u, U, A per synapse (`interleaved`) and pairs
// (R, u), (U, A) (`split`). Question: if a GPU layout wins there, does it cost the CPU pass, whose SIMD loop reads
// each array contiguously? The same arithmetic (pay_owed, pre_update, post_term) and loop as the product's CPU pass;
// every lane computes and stores, so the loop vectorises. Scenarios `all` (every row and column fires and owes m̄)
// and `post only` (no row fires); each layout's values after 3 passes are compared with the product's, bit for bit.
// Built on demand in a host build: `cmake --build build/host --target adex_cpu_layout_probe`.
//   adex_cpu_layout_probe [N ...]   (default 2000 4000), float and double, on the default host execution space
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <type_traits>
#include <vector>

#include "bench/lab/adex_layouts.hpp"
#include "models/adex_costa/adex_synapse_pass.hpp"

namespace {

using namespace kbrain::adex;
using namespace kbrain::adex::probe;

// SynapsePassChunked's rows over a layout's values: the product's chunk walk, this struct's row loop (the same SIMD
// loop in which every lane computes and stores, reading and writing the layout's fields).
template <class Real, class Layout>
struct ChunkedLayoutPass {
  using Columns = typename SynapsePassChunked<Real, Mem>::Columns;
  static constexpr bool kInterleaved = std::is_same_v<Layout, Interleaved<Real>>;
  SynapsePass<Real, Mem> pass;
  Layout layout;

  void operator()(const std::int64_t k) const { SynapsePassChunked<Real, Mem>::walk_chunk(pass, k, *this); }

  template <bool Pre>
  void row(std::int64_t i, std::int64_t first, std::int64_t width, Columns& col) const {
    const auto& st = pass.st;
    const KernelParams<double> p = pass.p;
    const std::int64_t id = pass.slot(i, first);
    const std::uint8_t* conn = st.conn.data() + id;
    Synapse<Real>* s = nullptr;
    Two<Real>*ru = nullptr, *UA = nullptr;
    if constexpr (kInterleaved)
      s = layout.syn.data() + id;
    else
      ru = layout.ru.data() + id, UA = layout.UA.data() + id;
    const double decay_r = st.decay_r(i), decay_u = st.decay_u(i), ffp_before = st.ffp_before(i);
    const double ffp_now = st.ffp_now(i);
    const int winner = int(i);
#pragma omp simd
    for (std::int64_t c = 0; c < width; ++c) {
      const bool on = conn[c] != 0;
      const Real A = kInterleaved ? s[c].A : UA[c].second;
      const double A_paid = col.owes[c] != 0 ? pay_owed(A, col.shift[c], p) : double(A);
      const double term = post_term(ffp_now, col.fbn[c], p);
      const bool adds = on && col.post[c] != 0;
      col.sum[c] += adds ? term : 0.0;
      col.count[c] += adds ? 1 : 0;
      const double A_new = col.post[c] != 0 ? A_paid + p.etaA * term : A_paid;
      const Real A_store = on ? Real(A_new) : A;
      if constexpr (Pre) {
        const Real U = kInterleaved ? s[c].U : UA[c].first;
        const Real R = kInterleaved ? s[c].R : ru[c].first;
        const Real u = kInterleaved ? s[c].u : ru[c].second;
        const PreUpdate n = pre_update(A_paid, U, R, u, decay_r, decay_u, col.fbp[c], col.fbn[c], ffp_before, p);
        col.current[c] = on ? n.current : col.current[c];
        col.winner[c] = on ? winner : col.winner[c];
        const Real R_new = on ? Real(n.R) : R, u_new = on ? Real(n.u) : u, U_new = on ? Real(n.U) : U;
        if constexpr (kInterleaved) {
          s[c] = Synapse<Real>{R_new, u_new, U_new, A_store};
        } else {
          ru[c] = Two<Real>{R_new, u_new};
          UA[c] = Two<Real>{U_new, A_store};
        }
      } else {
        if constexpr (kInterleaved)
          s[c].A = A_store;
        else
          UA[c].second = A_store;
      }
    }
  }
};

template <class Real>
void run(std::int64_t n, const char* precision, Scenario scenario) {
  AdexState<Real, Mem> st;
  st.allocate(n, 0, n, n, false);
  const auto p = KernelParams<double>::from(AdexCostaParams{}, 1.0);
  const SynapsePass<Real, Mem> pass{st, p, 0, n, true};
  const std::size_t slots = st.R.extent(0);
  const Range chunks(0, st.blocks * st.chunks);
  const auto product = [&] {
    Kokkos::parallel_for("adex_cpu_pass_arrays", chunks, SynapsePassChunked<Real, Mem>{pass});
  };
  prepare(st, scenario);
  for (int k = 0; k < 3; ++k) product();
  Kokkos::fence();
  const std::vector<Real> reference = bits(st);
  auto report = [&](const char* what, double s) {
    std::printf("%-6s n %lld %-9s %-28s %.3f ms per pass, %.3g synapse-steps/s\n", precision,
                static_cast<long long>(n), scenario_name(scenario), what, s * 1e3, double(n) * double(n) / s);
  };

  const Interleaved<Real> interleaved{Kokkos::View<Synapse<Real>*, Mem>("adex_synapses", slots)};
  const Split<Real> split{Kokkos::View<Two<Real>*, Mem>("adex_ru", slots), Kokkos::View<Two<Real>*, Mem>("adex_UA", slots)};
  const ChunkedLayoutPass<Real, Interleaved<Real>> pass_interleaved{pass, interleaved};
  const ChunkedLayoutPass<Real, Split<Real>> pass_split{pass, split};
  const auto launch_interleaved = [&] { Kokkos::parallel_for("adex_cpu_pass_interleaved", chunks, pass_interleaved); };
  const auto launch_split = [&] { Kokkos::parallel_for("adex_cpu_pass_split", chunks, pass_split); };
  check_layout(st, scenario, reference, precision, "interleaved", interleaved, launch_interleaved);
  check_layout(st, scenario, reference, precision, "split", split, launch_split);
  prepare(st, scenario);
  report("arrays", median_s(product));
  report("interleaved", median_s(launch_interleaved));
  report("split", median_s(launch_split));
  report("arrays again", median_s(product));
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    std::printf("%s, %d threads\n", Exec::name(), Exec().concurrency());
    for_each_case(argc, argv, {2000, 4000}, [](auto real, std::int64_t n, const char* precision, Scenario scenario) {
      run<decltype(real)>(n, precision, scenario);
    });
  }
  Kokkos::finalize();
  return 0;
}
