#pragma once
// The study's Algorithm 4 on one backend: C = op(A)·op(B) with A, B and C in host memory and only the blocks of a
// partition (gemm_partition.hpp) in the backend's memory. For each row block of C and each block of the inner
// dimension, the A block (and the B block unless A·Aᵀ) is copied in with one strided copy, the library GEMM
// accumulates into the C block (beta = 0 on the first inner block), and each finished C block is copied back.
//   single buffering: the study's loop, everything in order on the default instance.
//   double buffering: two block sets. The library GEMM runs on the default instance; copies in go on instances 0/1
//   (one per block set), copies out on 2/3 (one per C buffer). Before block j+1 is copied into the set block j-1
//   used, the host waits for the GEMM of block j-1 (the GEMMs are queued in order and block j's is not queued yet, so
//   this waits for j-1 alone); before a row block's first GEMM overwrites a C buffer, the copy out of the row block
//   that used it two row blocks earlier is waited for. Block j+1 thus moves while block j multiplies, and a finished
//   C block moves back while the next row block starts.
// GPUs run it with page-locked host matrices; host backends run it too (tests check the loop there, where the
// "device" is host memory and nothing overlaps).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosBlas3_gemm.hpp>

#include "backends/execution_instances.hpp"
#include "backends/pitched_copy.hpp"
#include "models/galbraith_gemm/gemm_operands.hpp"
#include "models/galbraith_gemm/gemm_partition.hpp"

namespace kbrain::galbraith {

template <class Backend, class Real>
class OutOfCoreGemm {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using Matrix = Kokkos::View<Real**, Kokkos::LayoutRight, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  OutOfCoreGemm(const GemmOperands& ops, const GemmPartition& part, bool double_buffered)
      : ops_(ops), part_(part), double_(double_buffered), blocks_(gemm_blocks(ops.shape, part)) {
    auto no_init = [](const char* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };
    for (int s = 0; s < (double_ ? 2 : 1); ++s) {
      a_[s] = Reals(no_init("gemm_A_block"), part.m_max * part.k_max);
      if (!ops.shape.gram) b_[s] = Reals(no_init("gemm_B_block"), part.k_max * ops.shape.n);
      c_[s] = Reals(no_init("gemm_C_block"), part.m_max * ops.shape.n);
    }
    if (double_) queues_ = std::make_unique<ExecutionInstances<Exec>>(4);
  }

  std::int64_t device_bytes() const {
    std::int64_t b = 0;
    for (int s = 0; s < 2; ++s) b += std::int64_t(a_[s].span() + b_[s].span() + c_[s].span()) * std::int64_t(sizeof(Real));
    return b;
  }
  double bytes_moved() const { return bytes_moved_; }  // since construction

  // One library GEMM per distinct block shape of the partition (rows, width, first inner block or not), on zeroed
  // blocks and with nothing copied: the library's first use of a shape (kernel selection, module loading) is then
  // set-up, as it is for the in-core GEMM this loop is compared with, and not part of the first product.
  void warm_up() {
    for (int s = 0; s < (double_ ? 2 : 1); ++s) {
      Kokkos::deep_copy(a_[s], Real(0));
      if (!ops_.shape.gram) Kokkos::deep_copy(b_[s], Real(0));
      Kokkos::deep_copy(c_[s], Real(0));
    }
    std::vector<GemmBlock> seen;
    for (const GemmBlock& k : blocks_) {
      const auto same = [&](const GemmBlock& o) {
        return o.rows == k.rows && o.width == k.width && o.first_inner == k.first_inner;
      };
      if (std::find_if(seen.begin(), seen.end(), same) != seen.end()) continue;
      seen.push_back(k);
      multiply(k, 0, 0);
    }
    Exec().fence();
  }

  // C = op(A)·op(B); returns when C is complete in host memory.
  void run(const Real* a, const Real* b, Real* c) {
    const Exec def;
    const std::size_t count = blocks_.size();
    if (!double_) {
      for (const GemmBlock& k : blocks_) {
        copy_in(k, a, b, 0, def);
        multiply(k, 0, 0);
        if (k.last_inner) copy_out(k, c, 0, def);
      }
      def.fence();
      return;
    }
    ExecutionInstances<Exec>& q = *queues_;
    copy_in(blocks_[0], a, b, 0, q[0]);
    for (std::size_t j = 0; j < count; ++j) {
      const GemmBlock& k = blocks_[j];
      const int set = static_cast<int>(j % 2), c_set = static_cast<int>(k.row_block % 2);
      q[set].fence();  // block j is in
      def.fence();     // the GEMM of block j-1 is done
      if (j > 0 && blocks_[j - 1].last_inner) copy_out_queued(blocks_[j - 1], c);
      if (j + 1 < count) copy_in(blocks_[j + 1], a, b, 1 - set, q[1 - set]);
      if (k.first_inner) q[2 + c_set].fence();  // this C buffer's previous row block is out
      multiply(k, set, c_set);
    }
    def.fence();
    copy_out_queued(blocks_[count - 1], c);
    q.fence();
  }

 private:
  using Reals = Kokkos::View<Real*, Mem>;

  void copy_in(const GemmBlock& k, const Real* a, const Real* b, int set, const Exec& exec) {
    const StoredBlock<Real> sa = a_block(ops_, a, k);
    PitchedCopy<Exec>::run(exec, a_[set].data(), sa.cols, sa.p, sa.pitch, sa.rows, sa.cols);
    bytes_moved_ += double(sa.rows * sa.cols) * sizeof(Real);
    if (ops_.shape.gram) return;
    const StoredBlock<Real> sb = b_block(ops_, b, k);
    PitchedCopy<Exec>::run(exec, b_[set].data(), sb.cols, sb.p, sb.pitch, sb.rows, sb.cols);
    bytes_moved_ += double(sb.rows * sb.cols) * sizeof(Real);
  }
  void multiply(const GemmBlock& k, int set, int c_set) {
    const Matrix A(a_[set].data(), ops_.transpose_a ? k.width : k.rows, ops_.transpose_a ? k.rows : k.width);
    const Matrix C(c_[c_set].data(), k.rows, ops_.shape.n);
    const Real beta = k.first_inner ? Real(0) : Real(1);
    if (ops_.shape.gram) {
      KokkosBlas::gemm("N", "T", Real(1), A, A, beta, C);
      return;
    }
    const Matrix B(b_[set].data(), ops_.transpose_b ? ops_.shape.n : k.width, ops_.transpose_b ? k.width : ops_.shape.n);
    KokkosBlas::gemm(ops_.op_a(), ops_.op_b(), Real(1), A, B, beta, C);
  }
  void copy_out(const GemmBlock& k, Real* c, int c_set, const Exec& exec) {
    const std::int64_t n = ops_.shape.n;
    PitchedCopy<Exec>::run(exec, c + k.i0 * n, n, c_[c_set].data(), n, k.rows, n);
    bytes_moved_ += double(k.rows * n) * sizeof(Real);
  }
  void copy_out_queued(const GemmBlock& k, Real* c) {
    const int c_set = static_cast<int>(k.row_block % 2);
    copy_out(k, c, c_set, (*queues_)[2 + c_set]);
  }

  GemmOperands ops_;
  GemmPartition part_;
  bool double_;
  std::vector<GemmBlock> blocks_;
  Reals a_[2], b_[2], c_[2];
  std::unique_ptr<ExecutionInstances<Exec>> queues_;
  double bytes_moved_ = 0;
};

}  // namespace kbrain::galbraith
