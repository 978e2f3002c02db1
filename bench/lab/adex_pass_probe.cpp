// The adex_costa synapse pass alone on CUDA, for the A/B of the rows whose loads a thread issues ahead
// (SynapsePass's RowsInFlight; bench/README.md). Built on demand: `cmake --build build/cuda --target adex_pass_probe`.
// Every row and column fires and owes the m̄ part (the benchmark case: 4 reals read and written and the
// connection byte per synapse-step). For R = 1, 2, 4, 8: median of 5 runs of 20 passes, and the synapse bits after
// 3 passes compared with R = 1 (they must be the same: only the loads move). Then the launch shape of R = 1: the
// product's RangePolicy (Kokkos picks the block size) against explicit blocks of 64 ... 512 threads, in the product's
// order (a thread block = neighbouring columns of one row block) and in band order (successive thread blocks = the
// same 256 columns of successive row blocks). The yardstick is Kokkos::deep_copy of as many bytes, read + write.
// The column-pair pass (SynapsePassPairs) is timed beside R = 1 when N is even; `pairs` times only those two.
// `groups` times wider accesses (GroupPass: a thread per (block, G columns), one G-wide load and store per array;
// float G = 2 and 4, i.e. 8- and 16-byte accesses; double G = 2) and the same without the connection byte (every
// synapse treated as connected: the bound of folding the flag into A, timing only), against the product's pass.
//   adex_pass_probe N [float|double|both] [shapes|pairs|groups]
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/lab/adex_probe_support.hpp"
#include "models/adex_costa/adex_kernels.hpp"

namespace {

using namespace kbrain::adex;
using namespace kbrain::adex::probe;

template <class Real, int R>
void time_pass(AdexState<Real, Mem>& st, const KernelParams<double>& p, const std::vector<Real>& reference,
               const char* precision) {
  const SynapsePass<Real, Mem, R> pass{st, p, 0, st.n_pre, true};
  const auto launch = [&] { Kokkos::parallel_for("adex_pass", Range(0, pass.launch_size(st.blocks)), pass); };
  const bool same = bits_after_three(st, launch) == reference || reference.empty();
  const double s = median_s(launch), n2 = double(st.n_pre) * double(st.n_post);
  std::printf("pass %s n %lld rows_in_flight %d: %.4f ms per pass, %.1f GB/s at %d B per synapse-step, "
              "bits as R=1: %s\n",
              precision, static_cast<long long>(st.n_pre), R, s * 1e3,
              n2 * double(8 * sizeof(Real) + 1) / s / 1e9, int(8 * sizeof(Real) + 1), same ? "yes" : "NO");
}

// The column-pair pass (SynapsePassPairs: a thread per (block, two columns), paired loads and stores).
template <class Real>
void time_pairs(AdexState<Real, Mem>& st, const KernelParams<double>& p, const std::vector<Real>& reference,
                const char* precision) {
  const SynapsePassPairs<Real, Mem> pairs{SynapsePass<Real, Mem>{st, p, 0, st.n_pre, true}};
  const auto launch = [&] { Kokkos::parallel_for("adex_pass_pairs", Range(0, pairs.launch_size(st.blocks)), pairs); };
  const bool same = bits_after_three(st, launch) == reference;
  const double s = median_s(launch), n2 = double(st.n_pre) * double(st.n_post);
  std::printf("pairs %s n %lld: %.4f ms per pass, %.1f GB/s at %d B per synapse-step, bits as R=1: %s\n", precision,
              static_cast<long long>(st.n_pre), s * 1e3, n2 * double(8 * sizeof(Real) + 1) / s / 1e9,
              int(8 * sizeof(Real) + 1), same ? "yes" : "NO");
}

// G neighbouring values, loaded or stored by one memory access (the row pitch is a multiple of G, so a group never
// straddles a row and is aligned to its size).
template <class T, int G>
struct alignas(G * sizeof(T)) GroupOf {
  T v[G];
};
template <int G, class T>
KOKKOS_FORCEINLINE_FUNCTION GroupOf<T, G> load_group(const T* at) {
  return *reinterpret_cast<const GroupOf<T, G>*>(at);
}
template <int G, class T>
KOKKOS_FORCEINLINE_FUNCTION void store_group(T* at, const GroupOf<T, G>& g) {
  *reinterpret_cast<GroupOf<T, G>*>(at) = g;
}

// SynapsePassPairs generalised to G columns per thread (G = 2 is the product's pairs), each column's arithmetic and
// row order SynapsePass's (the same bits). Flag false: no connection byte read, every synapse connected.
template <class Real, int G, bool Flag = true>
struct GroupPass {
  SynapsePass<Real, Mem> pass;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    const std::int64_t groups = pass.st.n_post / G, width = gpu_columns(groups), b = k / width, q = k - b * width;
    if (q < groups) walk(b, G * q);
  }
  std::int64_t launch_size(std::int64_t blocks) const { return blocks * gpu_columns(pass.st.n_post / G); }

  KOKKOS_INLINE_FUNCTION void walk(const std::int64_t b, const std::int64_t j) const {
    const auto& st = pass.st;
    ColumnStep c[G];
    ColumnScan scan[G];
    bool col[G], any_col = false;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int g = 0; g < G; ++g) {
      c[g] = pass.column(j + g);
      col[g] = c[g].post || c[g].owes;
      any_col = any_col || col[g];
    }
    const std::int64_t last = pass.row_end(b);
    for (std::int64_t i = pass.row_begin + b * kRowsPerBlock; i < last; ++i) {
      const bool pre = st.pre_flag(i) != 0;
      if (!(pre || any_col)) continue;
      const std::int64_t id = pass.slot(i, j);
      GroupOf<std::uint8_t, G> conn{};
      if (Flag) conn = load_group<G>(st.conn.data() + id);
      GroupOf<Real, G> A = load_group<G>(st.A.data() + id), U{}, R{}, u{};
      if (pre) {
        U = load_group<G>(st.U.data() + id);
        R = load_group<G>(st.R.data() + id);
        u = load_group<G>(st.u.data() + id);
      }
      bool any_pre = false, any_A = false;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int g = 0; g < G; ++g) {
        SynapseValues<Real> v;
        v.touched = pre || col[g];
        v.connected = !Flag || conn.v[g] != 0;
        v.A = A.v[g], v.U = U.v[g], v.R = R.v[g], v.u = u.v[g];
        const auto changed = pass.apply(i, pre, c[g], v, scan[g]);
        A.v[g] = v.A, U.v[g] = v.U, R.v[g] = v.R, u.v[g] = v.u;
        any_pre = any_pre || changed.pre;
        any_A = any_A || changed.A;
      }
      if (any_pre) {
        store_group<G>(st.R.data() + id, R);
        store_group<G>(st.u.data() + id, u);
        store_group<G>(st.U.data() + id, U);
      }
      if (any_A) store_group<G>(st.A.data() + id, A);
    }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int g = 0; g < G; ++g) pass.store(b, j + g, scan[g]);
  }
};

template <class Real, int G, bool Flag>
void time_group(AdexState<Real, Mem>& st, const KernelParams<double>& p, const std::vector<Real>& reference,
                const char* precision) {
  const GroupPass<Real, G, Flag> group{SynapsePass<Real, Mem>{st, p, 0, st.n_pre, true}};
  const auto launch = [&] { Kokkos::parallel_for("adex_pass_group", Range(0, group.launch_size(st.blocks)), group); };
  const std::vector<Real> got = bits_after_three(st, launch);
  const double s = median_s(launch), n2 = double(st.n_pre) * double(st.n_post);
  const int bytes = int(8 * sizeof(Real)) + (Flag ? 1 : 0);
  std::printf("group %s n %lld: %d columns per thread (%d-byte accesses)%s: %.4f ms per pass, %.1f GB/s at %d B per "
              "synapse-step, bits as R=1: %s\n",
              precision, static_cast<long long>(st.n_pre), G, int(G * sizeof(Real)), Flag ? "" : ", no connection byte",
              s * 1e3, n2 * double(bytes) / s / 1e9, bytes, Flag ? (got == reference ? "yes" : "NO") : "(not compared)");
}

// One R = 1 pass with an explicit thread-block size; band order: thread block t = (band, row block), 256 columns.
template <class Real>
struct ShapedPass {
  SynapsePass<Real, Mem, 1> pass;
  bool band_order;
  std::int64_t total;
  KOKKOS_INLINE_FUNCTION void operator()(const Kokkos::TeamPolicy<Exec>::member_type& m) const {
    const std::int64_t k = std::int64_t(m.league_rank()) * m.team_size() + m.team_rank();
    if (k >= total) return;
    std::int64_t b, j;
    if (band_order) {
      const std::int64_t per_band = 256 * pass.st.blocks, band = k / per_band, in_band = k - band * per_band;
      b = in_band / 256;
      j = band * 256 + (in_band - b * 256);
      if (j >= pass.st.n_post) return;
    } else {
      b = k / pass.st.n_post;
      j = k - b * pass.st.n_post;
    }
    pass.walk(b, j);
  }
};

template <class Real>
void time_shape(AdexState<Real, Mem>& st, const KernelParams<double>& p, const std::vector<Real>& reference,
                const char* precision, int team, bool band_order) {
  const SynapsePass<Real, Mem, 1> pass{st, p, 0, st.n_pre, true};
  const std::int64_t bands = (st.n_post + 255) / 256;
  const std::int64_t total = band_order ? bands * 256 * st.blocks : st.blocks * st.n_post;
  const ShapedPass<Real> shaped{pass, band_order, total};
  const Kokkos::TeamPolicy<Exec> policy((total + team - 1) / team, team);
  const auto launch = [&] { Kokkos::parallel_for("adex_pass_shaped", policy, shaped); };
  const bool same = bits_after_three(st, launch) == reference;
  const double s = median_s(launch), n2 = double(st.n_pre) * double(st.n_post);
  std::printf("shape %s n %lld %s order, %d threads per block: %.4f ms per pass, %.1f GB/s, bits as R=1: %s\n", precision,
              static_cast<long long>(st.n_pre), band_order ? "band" : "row-block", team, s * 1e3,
              n2 * double(8 * sizeof(Real) + 1) / s / 1e9, same ? "yes" : "NO");
}

template <class Real>
void run(std::int64_t n, const char* precision, bool shapes, bool pairs_only, bool groups) {
  AdexState<Real, Mem> st;
  st.allocate(n, 0, n, n, true);
  const auto p = KernelParams<double>::from(AdexCostaParams{}, 1.0);
  const SynapsePass<Real, Mem, 1> pass{st, p, 0, n, true};
  const std::vector<Real> reference =
      bits_after_three(st, [&] { Kokkos::parallel_for("adex_pass", Range(0, pass.launch_size(st.blocks)), pass); });
  time_pass<Real, 1>(st, p, {}, precision);
  if (n % 2 == 0) time_pairs<Real>(st, p, reference, precision);
  if (pairs_only) {
    time_pass<Real, 1>(st, p, reference, precision);
    return;
  }
  if (groups) {
    if (n % 4 == 0 && sizeof(Real) == 4) {
      time_group<Real, 4, true>(st, p, reference, precision);
      time_group<Real, 4, false>(st, p, reference, precision);
    }
    if (n % 2 == 0) {
      time_group<Real, 2, true>(st, p, reference, precision);
      time_group<Real, 2, false>(st, p, reference, precision);
    }
    if (n % 2 == 0) time_pairs<Real>(st, p, reference, precision);  // again: drift of the machine
    return;
  }
  if (shapes) {
    for (int team : {64, 128, 256, 512}) time_shape<Real>(st, p, reference, precision, team, false);
    for (int team : {256, 512}) time_shape<Real>(st, p, reference, precision, team, true);
    time_pass<Real, 1>(st, p, reference, precision);
    return;
  }
  time_pass<Real, 2>(st, p, reference, precision);
  time_pass<Real, 4>(st, p, reference, precision);
  time_pass<Real, 8>(st, p, reference, precision);
  time_pass<Real, 1>(st, p, reference, precision);  // again: drift of the machine between the first and last
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 10000;
    const std::string which = argc > 2 ? argv[2] : "both";
    const bool shapes = argc > 3 && std::string(argv[3]) == "shapes";
    const bool pairs_only = argc > 3 && std::string(argv[3]) == "pairs";
    const bool groups = argc > 3 && std::string(argv[3]) == "groups";
    copy_yardstick(n * n * 16);
    if (which != "double") run<float>(n, "float", shapes, pairs_only, groups);
    if (which != "float") run<double>(n, "double", shapes, pairs_only, groups);
  }
  Kokkos::finalize();
  return 0;
}
