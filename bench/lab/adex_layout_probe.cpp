// The adex_costa synapse pass on CUDA with the synapse values interleaved (a struct of R, u, U, A per synapse: one
// 16-byte load and store per synapse in float) against the product's structure of arrays (four loads and stores,
// column pairs for float). Question (issue 21, 10 000² float ≤ 1.0 s): the product's pass reads five streams and
// writes four, and reaches about three quarters of the copy rate; a copy is one stream each way. Does one stream of
// whole synapses bring the pass nearer the copy rate? The same arithmetic (SynapsePass::apply), the same thread
// mapping (a thread per (row block, column), columns padded to whole warps); the synapse values after 3 passes are
// compared with the product's. `noflag` also skips the connection byte (every synapse treated as connected): the
// bound of folding the flag into the struct, timing only.
// Built on demand: `cmake --build build/cuda --target adex_layout_probe`.
//   adex_layout_probe [N ...]   (default 10000 20000), float and double
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
using Synapses = Kokkos::View<Synapse<Real>*, Mem>;

// The pass over interleaved synapses; flags, traces and the partial sums are the product state's.
template <class Real, bool ReadFlag>
struct InterleavedPass {
  SynapsePass<Real, Mem> pass;
  Synapses<Real> syn;

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
      const Synapse<Real> s = syn(id);
      SynapseValues<Real> v;
      v.touched = true;
      v.connected = ReadFlag ? pass.st.conn(id) != 0 : true;
      v.A = s.A, v.U = s.U, v.R = s.R, v.u = s.u;
      const auto changed = pass.apply(i, pre, c, v, scan);
      if (changed.pre || changed.A) syn(id) = Synapse<Real>{v.R, v.u, v.U, v.A};
    }
    pass.store(b, j, scan);
  }
};

template <class Real>
struct Interleave {
  AdexState<Real, Mem> st;
  Synapses<Real> syn;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t id) const {
    syn(id) = Synapse<Real>{st.R(id), st.u(id), st.U(id), st.A(id)};
  }
};

// The interleaved values in the product's order (R, u, U, A arrays one after the other), as bits() reads them.
template <class Real>
std::vector<Real> bits(const Synapses<Real>& syn) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), syn);
  const std::size_t n = h.extent(0);
  std::vector<Real> out(4 * n);
  for (std::size_t k = 0; k < n; ++k) {
    out[k] = h(k).R;
    out[n + k] = h(k).u;
    out[2 * n + k] = h(k).U;
    out[3 * n + k] = h(k).A;
  }
  return out;
}

template <class Real>
void run(std::int64_t n, const char* precision) {
  AdexState<Real, Mem> st;
  st.allocate(n, 0, n, n, true);
  const auto p = KernelParams<double>::from(AdexCostaParams{}, 1.0);
  const SynapsePass<Real, Mem> pass{st, p, 0, n, true};
  const auto product = [&] { launch_gpu_synapse_pass(Exec(), "adex_pass_product", pass, st.blocks); };
  const std::vector<Real> reference = bits_after_three(st, product);

  Synapses<Real> syn(Kokkos::view_alloc(Kokkos::WithoutInitializing, "adex_synapses"), st.R.extent(0));
  const Range all(0, std::int64_t(st.R.extent(0)));
  fill(st);
  Kokkos::parallel_for("interleave", all, Interleave<Real>{st, syn});
  const InterleavedPass<Real, true> interleaved{pass, syn};
  const InterleavedPass<Real, false> noflag{pass, syn};
  const Range threads(0, st.blocks * gpu_columns(n));
  const auto launch_interleaved = [&] { Kokkos::parallel_for("adex_pass_interleaved", threads, interleaved); };
  const auto launch_noflag = [&] { Kokkos::parallel_for("adex_pass_noflag", threads, noflag); };
  for (int k = 0; k < 3; ++k) launch_interleaved();
  Kokkos::fence();
  const std::vector<Real> got = bits(syn);
  long long differ = 0;
  for (std::size_t k = 0; k < got.size(); ++k) differ += std::memcmp(&got[k], &reference[k], sizeof(Real)) != 0;

  const double slots = double(n) * double(n);
  const int bytes = int(8 * sizeof(Real) + 1);
  auto report = [&](const char* what, double s, int moved) {
    std::printf("%-6s n %lld %-34s %.4f ms per pass, %.1f GB/s at %d B per synapse-step\n", precision,
                static_cast<long long>(n), what, s * 1e3, slots * moved / s / 1e9, moved);
  };
  // interleaved: product, interleaved, no flag, product again (drift of the machine between first and last)
  report("product (arrays)", median_s(product), bytes);
  report("interleaved", median_s(launch_interleaved), bytes);
  report("interleaved, no connection byte", median_s(launch_noflag), bytes - 1);
  report("product again", median_s(product), bytes);
  std::printf("%-6s n %lld interleaved values differing from the product's after 3 passes: %lld of %zu\n", precision,
              static_cast<long long>(n), differ, got.size());
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    std::vector<std::int64_t> sizes;
    for (int k = 1; k < argc; ++k)
      if (std::atoll(argv[k]) > 0) sizes.push_back(std::atoll(argv[k]));
    if (sizes.empty()) sizes = {10000, 20000};
    for (const std::int64_t n : sizes) {
      copy_yardstick(n * n * 16);
      run<float>(n, "float");
      run<double>(n, "double");
    }
  }
  Kokkos::finalize();
  return 0;
}
