// The adex_costa synapse pass alone on CUDA, for the A/B of the rows whose loads a thread issues ahead (a column per
// thread: SynapsePassGroups with G = 1; bench/README.md). Built on demand: `cmake --build build/cuda --target
// adex_pass_probe`.
// Every row and column fires and owes the m̄ part (the benchmark case: 4 reals read and written and the
// connection byte per synapse-step). For R = 1, 2, 4, 8: median of 5 runs of 20 passes, and the synapse bits after
// 3 passes compared with R = 1 (they must be the same: only the loads move). Then the launch shape of R = 1: the
// product's RangePolicy (Kokkos picks the block size) against explicit blocks of 64 ... 512 threads, in the product's
// order (a thread block = neighbouring columns of one row block) and in band order (successive thread blocks = the
// same 256 columns of successive row blocks). The yardstick is Kokkos::deep_copy of as many bytes, read + write.
// The former product's column-pair pass (adex_pairs.hpp) is timed beside R = 1 when N is even; `product` times those
// two and the product's launch (launch_gpu_synapse_pass: column groups, bounded light-weight launch) with the flags
// read and with the rule `all`. `groups` times the group pass (models/adex_costa/adex_synapse_groups.hpp): 2 columns
// per thread (float 8-byte, double 16-byte accesses) and, for float, 4 (16-byte), each with 1 or 2 rows in flight,
// with the flags read and with the rule `all` computed instead (against the single column's bits with every synapse
// connected). `small` times the product's group against a column per thread (G = 1, twice the threads; the question for
// networks too small to fill the GPU with the product's threads). `hints` times the product's group and launch with
// cache hints on its loads and stores (adex_cache_hints.hpp) against the plain accesses. `tiled` times the product's
// launch over the synapse values in arrays and in the product's layout (GPUs: tiles of one line, R[T] u[T] U[T] A[T]),
// and each layout's access pattern alone (adex_stream_bound.hpp), every synapse connected, rule `all`; both layouts'
// values compared with a column per thread over arrays.
//   adex_pass_probe N [float|double|both] [shapes|product|groups|small|hints|tiled]
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/lab/adex_cache_hints.hpp"
#include "bench/lab/adex_pairs.hpp"
#include "bench/lab/adex_probe_support.hpp"
#include "bench/lab/adex_stream_bound.hpp"
#include "models/adex_costa/adex_kernels.hpp"
#include "models/adex_costa/adex_synapse_groups.hpp"

namespace {

using namespace kbrain::adex;
using namespace kbrain::adex::probe;

// A column per thread with R rows in flight, the flags read.
template <class Real, int R>
using SingleColumn = SynapsePassGroups<Real, Mem, 1, R>;

template <class Real, int R>
void time_pass(AdexState<Real, Mem>& st, const KernelParams<double>& p, const std::vector<Real>& reference,
               const char* precision) {
  const SingleColumn<Real, R> pass{SynapsePass<Real, Mem>{st, p, 0, st.n_pre, true}};
  const auto launch = [&] { Kokkos::parallel_for("adex_pass", Range(0, pass.launch_size(st.blocks)), pass); };
  const bool same = bits_after_three(st, launch) == reference || reference.empty();
  const double s = median_s(launch), n2 = double(st.n_pre) * double(st.n_post);
  std::printf("pass %s n %lld rows_in_flight %d: %.4f ms per pass, %.1f GB/s at %d B per synapse-step, "
              "bits as R=1: %s\n",
              precision, static_cast<long long>(st.n_pre), R, s * 1e3,
              n2 * double(8 * sizeof(Real) + 1) / s / 1e9, int(8 * sizeof(Real) + 1), same ? "yes" : "NO");
}

// The former product's column-pair pass (SynapsePassPairs: a thread per (block, two columns), paired loads and stores).
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

// The group pass (adex_synapse_groups.hpp: a thread per (block, G columns), one G-wide load and store per array) with R
// rows in flight; `all` true: every synapse connected and the rule `all` computed instead of the flag read.
// `light` (its label): launched as the product launches its pass (kx::light_weight on an execution-space instance),
// which in the product's all-firing step took longer than the plain launch (bench/README.md, column groups), under
// `Policy`, which may carry Kokkos::LaunchBounds to cap the kernel's registers (the light-weight launch gave the
// kernel more registers than the plain one: bench/README.md).
// `Access`: how a group is loaded and stored (the product's plain accesses, or the lab's cache hints:
// adex_cache_hints.hpp).
template <class Real, int G, int R, class Policy = Range, class Access = PlainGroupAccess>
void time_groups(AdexState<Real, Mem>& st, const KernelParams<double>& p, const std::vector<Real>& reference,
                 const char* precision, bool all, const char* light = nullptr) {
  SynapsePassGroups<Real, Mem, G, R, Access> groups{SynapsePass<Real, Mem>{st, p, 0, st.n_pre, true}};
  if (all) groups.rule = ConnectionRule{Connectivity::All, Parity::PostEven};
  const auto launch = [&] {
    if (light)
      Kokkos::parallel_for("adex_pass_groups", kbrain::kx::light_weight(Policy(Exec(), 0, groups.launch_size(st.blocks))),
                           groups);
    else
      Kokkos::parallel_for("adex_pass_groups", Policy(0, groups.launch_size(st.blocks)), groups);
  };
  const bool same = bits_after_three(st, launch, all) == reference;
  const double s = median_s(launch), n2 = double(st.n_pre) * double(st.n_post);
  const int bytes = int(8 * sizeof(Real)) + (all ? 0 : 1);
  std::printf("groups %s n %lld: %d columns (%d-byte accesses), %d rows in flight%s%s%s: %.4f ms per pass, %.1f GB/s "
              "at %d B per synapse-step, bits as a column per thread: %s\n",
              precision, static_cast<long long>(st.n_pre), G, int(G * sizeof(Real)), R,
              all ? ", rule all (no flag read)" : "", light ? ", " : "", light ? light : "", s * 1e3,
              n2 * double(bytes) / s / 1e9, bytes, same ? "yes" : "NO");
}

// The product's launch of its pass (launch_gpu_synapse_pass); `all`: every synapse connected and the rule `all`.
template <class Real>
void time_product(AdexState<Real, Mem>& st, const KernelParams<double>& p, const std::vector<Real>& reference,
                  const char* precision, bool all) {
  const SynapsePass<Real, Mem> pass{st, p, 0, st.n_pre, true};
  const ConnectionRule rule = all ? ConnectionRule{Connectivity::All, Parity::PostEven} : ConnectionRule{};
  const auto launch = [&] { launch_gpu_synapse_pass(Exec(), "adex_pass_product", pass, rule, st.blocks); };
  const bool same = bits_after_three(st, launch, all) == reference;
  const double s = median_s(launch), n2 = double(st.n_pre) * double(st.n_post);
  const int bytes = int(8 * sizeof(Real)) + (all ? 0 : 1);
  std::printf("product %s n %lld%s: %.4f ms per pass, %.1f GB/s at %d B per synapse-step, bits as a column per "
              "thread: %s\n",
              precision, static_cast<long long>(st.n_pre), all ? ", rule all (no flag read)" : ", flags read", s * 1e3,
              n2 * double(bytes) / s / 1e9, bytes, same ? "yes" : "NO");
}

// Bounds that cap G = 2, R = 2 below the plain launch's registers without spills (bench/README.md; <256, 3> spilled).
using BoundedRange = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>, Kokkos::LaunchBounds<128, 5>>;

// The access pattern alone (lab::StreamBound) over `pass`'s slots, bounded light-weight launch.
template <class Real, int G>
void time_bound(const SynapsePass<Real, Mem>& pass, const char* layout, const char* precision) {
  const lab::StreamBound<Real, Mem, G> bound{pass};
  const auto& st = pass.st;
  const auto launch = [&] {
    Kokkos::parallel_for("adex_stream_bound", kbrain::kx::light_weight(BoundedRange(Exec(), 0, bound.launch_size(st.blocks))),
                         bound);
  };
  const double s = median_s(launch), n2 = double(st.n_pre) * double(st.n_post);
  const int bytes = int(8 * sizeof(Real));
  std::printf("bound %s n %lld: %s, %d columns a thread, loads and stores only: %.4f ms per pass, %.1f GB/s at %d B\n",
              precision, static_cast<long long>(st.n_pre), layout, G, s * 1e3, n2 * double(bytes) / s / 1e9, bytes);
}

// One R = 1 pass with an explicit thread-block size; band order: thread block t = (band, row block), 256 columns.
template <class Real>
struct ShapedPass {
  SingleColumn<Real, 1> pass;
  bool band_order;
  std::int64_t total;
  KOKKOS_INLINE_FUNCTION void operator()(const Kokkos::TeamPolicy<Exec>::member_type& m) const {
    const std::int64_t k = std::int64_t(m.league_rank()) * m.team_size() + m.team_rank();
    if (k >= total) return;
    std::int64_t b, j;
    if (band_order) {
      const std::int64_t per_band = 256 * pass.pass.st.blocks, band = k / per_band, in_band = k - band * per_band;
      b = in_band / 256;
      j = band * 256 + (in_band - b * 256);
      if (j >= pass.pass.st.n_post) return;
    } else {
      b = k / pass.pass.st.n_post;
      j = k - b * pass.pass.st.n_post;
    }
    ColumnScan scan[1];
    pass.walk(b, j, scan);  // winners only: the product's sum groups need a warp's lanes, which these shapes regroup
  }
};

template <class Real>
void time_shape(AdexState<Real, Mem>& st, const KernelParams<double>& p, const std::vector<Real>& reference,
                const char* precision, int team, bool band_order) {
  const SingleColumn<Real, 1> pass{SynapsePass<Real, Mem>{st, p, 0, st.n_pre, true}};
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
void run(std::int64_t n, const char* precision, const std::string& mode) {
  const bool shapes = mode == "shapes", product_only = mode == "product", groups = mode == "groups",
             small = mode == "small", hints = mode == "hints", tiles = mode == "tiled";
  AdexState<Real, Mem> st;
  st.allocate(n, 0, n, n, true);
  const auto p = KernelParams<double>::from(AdexCostaParams{}, 1.0);
  const SingleColumn<Real, 1> pass{SynapsePass<Real, Mem>{st, p, 0, n, true}};
  const auto single = [&] { Kokkos::parallel_for("adex_pass", Range(0, pass.launch_size(st.blocks)), pass); };
  const std::vector<Real> reference = bits_after_three(st, single);
  time_pass<Real, 1>(st, p, {}, precision);
  if (n % 2 == 0) time_pairs<Real>(st, p, reference, precision);
  if (product_only) {
    time_product<Real>(st, p, reference, precision, false);
    time_product<Real>(st, p, bits_after_three(st, single, true), precision, true);
    time_pass<Real, 1>(st, p, reference, precision);
    return;
  }
  if (small) {  // the product's group against a column per thread (twice the threads), both bounded and by rule
    const std::vector<Real> connected = bits_after_three(st, single, true);
    time_product<Real>(st, p, connected, precision, true);
    time_groups<Real, 1, 2, BoundedRange>(st, p, connected, precision, true, "light-weight launch, LaunchBounds<128, 5>");
    time_groups<Real, 1, 1, BoundedRange>(st, p, connected, precision, true, "light-weight launch, LaunchBounds<128, 5>");
    time_groups<Real, 1, 2>(st, p, connected, precision, true, "light-weight launch");
    time_product<Real>(st, p, connected, precision, true);  // again: drift of the machine
    return;
  }
  if (hints) {  // the product's group and launch, with cache hints on its loads and stores
    const std::vector<Real> connected = bits_after_three(st, single, true);
    const char* bounded = "light-weight launch, LaunchBounds<128, 5>";
    time_product<Real>(st, p, connected, precision, true);
    time_groups<Real, 2, 2, BoundedRange, lab::StreamingGroupAccess>(st, p, connected, precision, true,
                                                                     "bounded, ld.cs + st.cs");
    time_groups<Real, 2, 2, BoundedRange, lab::StreamingStoreAccess>(st, p, connected, precision, true,
                                                                     "bounded, ld + st.cs");
    time_groups<Real, 2, 2, BoundedRange, lab::LastUseGroupAccess>(st, p, connected, precision, true,
                                                                   "bounded, ld.lu + st.cs");
    time_groups<Real, 2, 2, BoundedRange>(st, p, connected, precision, true, bounded);
    time_product<Real>(st, p, connected, precision, true);  // again: drift of the machine
    return;
  }
  if (tiles) {  // the product (its state's layout: tiles of one line on GPUs) against the product over arrays
    AdexState<Real, Mem> arrays;
    arrays.allocate(n, 0, n, n, true, true, -1);
    const SingleColumn<Real, 1> on_arrays{SynapsePass<Real, Mem>{arrays, p, 0, n, true}};
    const auto single_arrays = [&] {
      Kokkos::parallel_for("adex_pass", Range(0, on_arrays.launch_size(arrays.blocks)), on_arrays);
    };
    const std::vector<Real> connected = bits_after_three(arrays, single_arrays, true);
    std::printf("product layout: %s\n", st.tile_shift < 0 ? "arrays" : "tiles");
    time_product<Real>(arrays, p, connected, precision, true);
    time_product<Real>(st, p, connected, precision, true);
    time_product<Real>(arrays, p, connected, precision, true);  // again: drift of the machine
    time_product<Real>(st, p, connected, precision, true);
    time_bound<Real, 2>(SynapsePass<Real, Mem>{arrays, p, 0, n, true}, "arrays", precision);
    time_bound<Real, 2>(SynapsePass<Real, Mem>{st, p, 0, n, true}, "the product's layout", precision);
    return;
  }
  if (groups) {
    const std::vector<Real> connected = bits_after_three(st, single, true);
    time_groups<Real, 2, 1>(st, p, reference, precision, false);
    time_groups<Real, 2, 1>(st, p, connected, precision, true);
    time_groups<Real, 2, 2>(st, p, reference, precision, false);
    time_groups<Real, 2, 2>(st, p, connected, precision, true);
    if constexpr (sizeof(Real) == 4) {  // 16-byte accesses
      time_groups<Real, 4, 1>(st, p, reference, precision, false);
      time_groups<Real, 4, 1>(st, p, connected, precision, true);
    }
    time_groups<Real, 2, 2>(st, p, connected, precision, true, "light-weight launch");
    time_groups<Real, 2, 1>(st, p, reference, precision, false, "light-weight launch");
    time_groups<Real, 2, 2, BoundedRange>(st, p, connected, precision, true, "light-weight launch, LaunchBounds<128, 5>");
    time_product<Real>(st, p, connected, precision, true);
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
    const std::string mode = argc > 3 ? argv[3] : "";
    copy_yardstick(n * n * 16);
    if (which != "double") run<float>(n, "float", mode);
    if (which != "float") run<double>(n, "double", mode);
  }
  Kokkos::finalize();
  return 0;
}
