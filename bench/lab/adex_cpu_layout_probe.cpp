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
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/lab/adex_probe_support.hpp"
#include "models/adex_costa/adex_synapse_pass.hpp"

namespace {

using namespace kbrain::adex;
using namespace kbrain::adex::probe;

template <class Real>
struct alignas(4 * sizeof(Real)) Synapse {
  Real R, u, U, A;
};
template <class Real>
struct alignas(2 * sizeof(Real)) Two {
  Real first, second;
};

enum class Layout { Interleaved, Split };

// The values of one layout (only the views of that layout are allocated).
template <class Real>
struct Values {
  Kokkos::View<Synapse<Real>*, Mem> syn;
  Kokkos::View<Two<Real>*, Mem> ru, UA;
};

// SynapsePassChunked's loop over a layout's values: a thread per (row block, chunk of columns), columns innermost.
template <class Real, Layout L>
struct ChunkedLayoutPass {
  using Columns = typename SynapsePassChunked<Real, Mem>::Columns;
  SynapsePass<Real, Mem> pass;
  Values<Real> values;

  void operator()(const std::int64_t k) const {
    const auto& st = pass.st;
    const std::int64_t b = k / st.chunks, first = (k - b * st.chunks) * kColumnsPerChunk;
    const std::int64_t width = first + kColumnsPerChunk < st.n_post ? kColumnsPerChunk : st.n_post - first;
    Columns col;
    for (std::int64_t c = 0; c < width; ++c) {
      const ColumnStep step = pass.column(first + c);
      col.shift[c] = step.shift, col.fbp[c] = step.fbp, col.fbn[c] = step.fbn;
      col.post[c] = step.post, col.owes[c] = step.owes;
      col.current[c] = 0, col.sum[c] = 0, col.count[c] = 0, col.winner[c] = -1;
    }
    for (std::int64_t i = pass.row_begin + b * kRowsPerBlock; i < pass.row_end(b); ++i) {
      if (st.pre_flag(i) != 0)
        row<true>(i, first, width, col);
      else
        row<false>(i, first, width, col);
    }
    for (std::int64_t c = 0; c < width; ++c)
      pass.store(b, first + c, ColumnScan{col.winner[c], col.current[c], col.sum[c], col.count[c]});
  }

  template <bool Pre>
  void row(std::int64_t i, std::int64_t first, std::int64_t width, Columns& col) const {
    const auto& st = pass.st;
    const KernelParams<double> p = pass.p;
    const std::int64_t id = pass.slot(i, first);
    const std::uint8_t* conn = st.conn.data() + id;
    Synapse<Real>* s = L == Layout::Interleaved ? values.syn.data() + id : nullptr;
    Two<Real>* ru = L == Layout::Split ? values.ru.data() + id : nullptr;
    Two<Real>* UA = L == Layout::Split ? values.UA.data() + id : nullptr;
    const double decay_r = st.decay_r(i), decay_u = st.decay_u(i), ffp_before = st.ffp_before(i);
    const double ffp_now = st.ffp_now(i);
    const int winner = int(i);
#pragma omp simd
    for (std::int64_t c = 0; c < width; ++c) {
      const bool on = conn[c] != 0;
      const Real A = L == Layout::Interleaved ? s[c].A : UA[c].second;
      const double A_paid = col.owes[c] != 0 ? pay_owed(A, col.shift[c], p) : double(A);
      const double term = post_term(ffp_now, col.fbn[c], p);
      const bool adds = on && col.post[c] != 0;
      col.sum[c] += adds ? term : 0.0;
      col.count[c] += adds ? 1 : 0;
      const double A_new = col.post[c] != 0 ? A_paid + p.etaA * term : A_paid;
      const Real A_store = on ? Real(A_new) : A;
      if constexpr (Pre) {
        const Real U = L == Layout::Interleaved ? s[c].U : UA[c].first;
        const Real R = L == Layout::Interleaved ? s[c].R : ru[c].first;
        const Real u = L == Layout::Interleaved ? s[c].u : ru[c].second;
        const PreUpdate n = pre_update(A_paid, U, R, u, decay_r, decay_u, col.fbp[c], col.fbn[c], ffp_before, p);
        col.current[c] = on ? n.current : col.current[c];
        col.winner[c] = on ? winner : col.winner[c];
        const Real R_new = on ? Real(n.R) : R, u_new = on ? Real(n.u) : u, U_new = on ? Real(n.U) : U;
        if constexpr (L == Layout::Interleaved) {
          s[c] = Synapse<Real>{R_new, u_new, U_new, A_store};
        } else {
          ru[c] = Two<Real>{R_new, u_new};
          UA[c] = Two<Real>{U_new, A_store};
        }
      } else {
        if constexpr (L == Layout::Interleaved)
          s[c].A = A_store;
        else
          UA[c].second = A_store;
      }
    }
  }
};

template <class Real>
struct FromArrays {
  AdexState<Real, Mem> st;
  Values<Real> v;
  Layout layout;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t id) const {
    if (layout == Layout::Interleaved) {
      v.syn(id) = Synapse<Real>{st.R(id), st.u(id), st.U(id), st.A(id)};
    } else {
      v.ru(id) = Two<Real>{st.R(id), st.u(id)};
      v.UA(id) = Two<Real>{st.U(id), st.A(id)};
    }
  }
};

// A layout's values in bits()'s order: R, u, U, A arrays one after the other.
template <class Real>
std::vector<Real> values_of(const Values<Real>& v, Layout layout, std::size_t n) {
  std::vector<Real> out(4 * n);
  for (std::size_t k = 0; k < n; ++k) {
    if (layout == Layout::Interleaved) {
      out[k] = v.syn(k).R, out[n + k] = v.syn(k).u, out[2 * n + k] = v.syn(k).U, out[3 * n + k] = v.syn(k).A;
    } else {
      out[k] = v.ru(k).first, out[n + k] = v.ru(k).second, out[2 * n + k] = v.UA(k).first, out[3 * n + k] = v.UA(k).second;
    }
  }
  return out;
}

enum class Scenario { All, PostOnly };

template <class Real>
void prepare(AdexState<Real, Mem>& st, Scenario scenario) {
  fill(st);
  Kokkos::deep_copy(st.post_flag, 1);
  if (scenario == Scenario::PostOnly) Kokkos::deep_copy(st.pre_flag, 0);
  Kokkos::fence();
}

template <class Real>
void run(std::int64_t n, const char* precision, Scenario scenario) {
  AdexState<Real, Mem> st;
  st.allocate(n, 0, n, n, false);
  const auto p = KernelParams<double>::from(AdexCostaParams{}, 1.0);
  const SynapsePass<Real, Mem> pass{st, p, 0, n, true};
  const std::size_t slots = st.R.extent(0);
  const Range chunks(0, st.blocks * st.chunks), all(0, std::int64_t(slots));
  const auto product = [&] {
    Kokkos::parallel_for("adex_cpu_pass_arrays", chunks, SynapsePassChunked<Real, Mem>{pass});
  };
  prepare(st, scenario);
  for (int k = 0; k < 3; ++k) product();
  Kokkos::fence();
  const std::vector<Real> reference = bits(st);
  const char* name = scenario == Scenario::All ? "all" : "post only";
  auto report = [&](const char* what, double s) {
    std::printf("%-6s n %lld %-9s %-12s %.3f ms per pass, %.3g synapse-steps/s\n", precision,
                static_cast<long long>(n), name, what, s * 1e3, double(n) * double(n) / s);
  };

  Values<Real> interleaved, split;
  interleaved.syn = Kokkos::View<Synapse<Real>*, Mem>("adex_synapses", slots);
  split.ru = Kokkos::View<Two<Real>*, Mem>("adex_ru", slots);
  split.UA = Kokkos::View<Two<Real>*, Mem>("adex_UA", slots);
  const ChunkedLayoutPass<Real, Layout::Interleaved> pass_interleaved{pass, interleaved};
  const ChunkedLayoutPass<Real, Layout::Split> pass_split{pass, split};
  const auto launch_interleaved = [&] { Kokkos::parallel_for("adex_cpu_pass_interleaved", chunks, pass_interleaved); };
  const auto launch_split = [&] { Kokkos::parallel_for("adex_cpu_pass_split", chunks, pass_split); };
  auto check = [&](const char* what, const Values<Real>& v, Layout layout, const auto& launch) {
    prepare(st, scenario);
    Kokkos::parallel_for("from_arrays", all, FromArrays<Real>{st, v, layout});
    for (int k = 0; k < 3; ++k) launch();
    Kokkos::fence();
    const std::vector<Real> got = values_of(v, layout, slots);
    long long differ = 0;
    for (std::size_t k = 0; k < got.size(); ++k) differ += std::memcmp(&got[k], &reference[k], sizeof(Real)) != 0;
    std::printf("%-6s n %lld %-9s %-12s values differing from the product's after 3 passes: %lld of %zu\n", precision,
                static_cast<long long>(n), name, what, differ, got.size());
  };
  check("interleaved", interleaved, Layout::Interleaved, launch_interleaved);
  check("split", split, Layout::Split, launch_split);
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
    std::vector<std::int64_t> sizes;
    for (int k = 1; k < argc; ++k)
      if (std::atoll(argv[k]) > 0) sizes.push_back(std::atoll(argv[k]));
    if (sizes.empty()) sizes = {2000, 4000};
    std::printf("%s, %d threads\n", Exec::name(), Exec().concurrency());
    for (const std::int64_t n : sizes) {
      copy_yardstick(n * n * 16);
      for (const Scenario scenario : {Scenario::All, Scenario::PostOnly}) {
        run<float>(n, "float", scenario);
        run<double>(n, "double", scenario);
      }
    }
  }
  Kokkos::finalize();
  return 0;
}
