// Where the out-of-core GEMM's time goes (issue 24: at an 896 MiB budget the double-buffered loop takes 1.85x the
// larger of its link time and the in-core GEMM at 12 000², 1.2x at 16 000² and 20 000²). For the product's partition
// of an N x N x N float product (or double) at a budget, on CUDA with page-locked host matrices, each timed alone:
//   in-core     the library GEMM of the whole product on device-resident data (run.json's in_core_gemm_s), twice;
//   blocks      the partition's block GEMMs back to back on device buffers shaped as the loop's (leading dimension =
//               the block width), twice: the sum against in-core tells whether the block shapes are slower; then
//               the same with every block's rows padded to 128 bytes (the odd k_max as leading dimension or not);
//   copies      the loop's block copies in (and C out) one after another on one stream: the link time alone;
//   loop        galbraith::OutOfCoreGemm::run (the product's loop), three times: the first against the others tells
//               how much of a one-product run is start-up (library kernels loaded on first use).
// Reading: loop ≈ max(blocks, copies) means the overlap works; loop ≈ blocks + copies means it does not.
//   gemm_ooc_probe N BUDGET_BYTES [float|double] [single]
#include <Kokkos_Core.hpp>
#include <KokkosBlas3_gemm.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "backends/pitched_copy.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "models/galbraith_gemm/gemm_out_of_core.hpp"
#include "models/galbraith_gemm/gemm_partition.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::galbraith;
using Exec = Kokkos::Cuda;
using Mem = Kokkos::CudaSpace;

template <class F>
double seconds(F&& f) {
  Kokkos::fence();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class Real>
void run(std::int64_t n, double budget, bool double_buffered) {
  using Matrix = Kokkos::View<Real**, Kokkos::LayoutRight, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Pinned = Kokkos::View<Real*, Kokkos::CudaHostPinnedSpace>;
  const GemmShape shape{n, n, n, false};
  const GemmOperands ops{shape, false, false};
  // the product's rule (gemm_partition_for): half the budget per block set when double buffered, 15 MiB of work
  const std::int64_t S = block_elements(budget, 15728640.0, sizeof(Real));
  const GemmPartition part = solve_partition(shape, double_buffered ? S / 2 : S);
  if (!part.feasible()) {
    std::printf("no partition of %lld² fits %.0f bytes\n", static_cast<long long>(n), budget);
    return;
  }
  const std::vector<GemmBlock> blocks = gemm_blocks(shape, part);
  std::printf("%s n %lld budget %.0f %s: t_m %lld t_k %lld m_max %lld k_max %lld, %zu blocks\n",
              sizeof(Real) == 4 ? "float" : "double", static_cast<long long>(n), budget,
              double_buffered ? "double" : "single", static_cast<long long>(part.t_m), static_cast<long long>(part.t_k),
              static_cast<long long>(part.m_max), static_cast<long long>(part.k_max), blocks.size());
  Pinned a("A", n * n), b("B", n * n), c("C", n * n);
  Kokkos::deep_copy(a, Real(0.5));
  Kokkos::deep_copy(b, Real(0.25));
  const double flops = 2.0 * double(n) * double(n) * double(n);

  {  // in-core, when the whole product fits beside nothing else
    Kokkos::View<Real*, Mem> da("dA", n * n), db("dB", n * n), dc("dC", n * n);
    const Matrix A(da.data(), n, n), B(db.data(), n, n), C(dc.data(), n, n);
    for (int r = 0; r < 2; ++r) {
      const double s = seconds([&] { KokkosBlas::gemm("N", "N", Real(1), A, B, Real(0), C); });
      std::printf("in-core %d: %.4f s, %.1f TFLOP/s\n", r, s, flops / s / 1e12);
    }
  }
  {  // the block GEMMs alone, on buffers shaped as the loop's
    Kokkos::View<Real*, Mem> da("dA", part.m_max * part.k_max), db("dB", part.k_max * n), dc("dC", part.m_max * n);
    for (int r = 0; r < 2; ++r) {
      const double s = seconds([&] {
        for (const GemmBlock& k : blocks) {
          const Matrix A(da.data(), k.rows, k.width), B(db.data(), k.width, n), C(dc.data(), k.rows, n);
          KokkosBlas::gemm("N", "N", Real(1), A, B, k.first_inner ? Real(0) : Real(1), C);
        }
      });
      std::printf("blocks %d: %.4f s, %.1f TFLOP/s\n", r, s, flops / s / 1e12);
    }
    // the same with every block's rows padded to 128 bytes (leading dimension a multiple of 32 elements): whether
    // the loop's odd block widths (k_max) cost the library its aligned kernels
    const auto pad = [](std::int64_t x) { return (x + 31) / 32 * 32; };
    using Full = Kokkos::View<Real**, Kokkos::LayoutRight, Mem>;
    Full pa("pA", part.m_max, pad(part.k_max)), pb("pB", part.k_max, pad(n)), pc("pC", part.m_max, pad(n));
    for (int r = 0; r < 2; ++r) {
      const double s = seconds([&] {
        for (const GemmBlock& k : blocks) {
          const auto span = [](std::int64_t count) { return std::pair<std::int64_t, std::int64_t>(0, count); };
          const auto A = Kokkos::subview(pa, span(k.rows), span(k.width));
          const auto B = Kokkos::subview(pb, span(k.width), span(n));
          const auto C = Kokkos::subview(pc, span(k.rows), span(n));
          KokkosBlas::gemm("N", "N", Real(1), A, B, k.first_inner ? Real(0) : Real(1), C);
        }
      });
      std::printf("blocks, rows padded to 128 B (lda %lld) %d: %.4f s, %.1f TFLOP/s\n",
                  static_cast<long long>(pad(part.k_max)), r, s, flops / s / 1e12);
    }
    // the copies alone, in the loop's order, one stream
    double bytes = 0;
    const double s = seconds([&] {
      const Exec exec;
      for (const GemmBlock& k : blocks) {
        const StoredBlock<Real> sa = a_block(ops, a.data(), k), sb = b_block(ops, b.data(), k);
        PitchedCopy<Exec>::run(exec, da.data(), sa.cols, sa.p, sa.pitch, sa.rows, sa.cols);
        PitchedCopy<Exec>::run(exec, db.data(), sb.cols, sb.p, sb.pitch, sb.rows, sb.cols);
        bytes += double(sa.rows * sa.cols + sb.rows * sb.cols) * sizeof(Real);
        if (k.last_inner) {
          PitchedCopy<Exec>::run(exec, c.data() + k.i0 * n, n, dc.data(), n, k.rows, n);
          bytes += double(k.rows * n) * sizeof(Real);
        }
      }
    });
    std::printf("copies: %.4f s, %.2f GB, %.1f GB/s\n", s, bytes / 1e9, bytes / s / 1e9);
  }
  OutOfCoreGemm<CudaBackend, Real> loop(ops, part, double_buffered);
  for (int r = 0; r < 3; ++r) {
    const double s = seconds([&] { loop.run(a.data(), b.data(), c.data()); });
    std::printf("loop %d: %.4f s, %.1f TFLOP/s\n", r, s, flops / s / 1e12);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 12000;
    const double budget = argc > 2 ? std::atof(argv[2]) : 939524096.0;
    const std::string precision = argc > 3 ? argv[3] : "float";
    const bool double_buffered = !(argc > 4 && std::string(argv[4]) == "single");
    if (precision == "double")
      run<double>(n, budget, double_buffered);
    else
      run<float>(n, budget, double_buffered);
  }
  Kokkos::finalize();
  return 0;
}
