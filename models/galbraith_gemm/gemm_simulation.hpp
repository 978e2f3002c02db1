#pragma once
// Runs C = op(A)·op(B) on one backend, once per step. A, B and C live in host memory (page-locked on GPUs), drawn
// from the counter RNG.
//   Host backends: one library GEMM over the whole matrices (Kokkos Kernels -> the host BLAS, one thread on Serial,
//   every Kokkos thread on OpenMP): the CPU rows of the study's comparison.
//   GPUs: the study's Algorithm 4 (gemm_out_of_core.hpp) over the partition the device budget allows; before the
//   loop, one GEMM of the whole product on device-resident data (when it fits) gives the library's in-core time, the
//   bound the loop is judged against with the link time of the bytes it moves.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <Kokkos_Core.hpp>
#include <KokkosBlas3_gemm.hpp>

#include "backends/hardware_info.hpp"
#include "backends/host_blas.hpp"
#include "backends/link_bandwidth.hpp"
#include "core/rng/counter_rng.hpp"
#include "core/timing/stopwatch.hpp"
#include "models/common/device_sampler.hpp"
#include "models/galbraith_gemm/gemm_out_of_core.hpp"
#include "models/galbraith_gemm/gemm_plan.hpp"
#include "models/runtime/memory_statement.hpp"
#include "models/runtime/run_request.hpp"
#include "models/runtime/run_result.hpp"

namespace kbrain::galbraith {

template <class Real, class Mem>
struct GemmReader {
  Kokkos::View<const Real*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> c;
  KOKKOS_INLINE_FUNCTION Real operator()(int, std::int64_t i) const { return c(i); }
};

template <class Backend, class Real>
class GemmSimulation {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using Host = typename Backend::staging_memory_space;
  using Reader = GemmReader<Real, Mem>;
  using CView = Kokkos::View<const Real*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Sampler = DeviceSampler<Exec, Real, Reader>;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;
  using Block2 = Kokkos::View<Real**, Kokkos::LayoutRight, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using HostBlock2 = Kokkos::View<Real**, Kokkos::LayoutRight, Host, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  // A, B and C live in host memory, refused (exit 2) beyond the host's available memory with the largest size that
  // fits; a GPU holds the blocks of the partition its budget allows, refused when not even one row block fits.
  static MemoryStatement memory(const GemmPlan& plan, const RunRequest&) {
    MemoryStatement m;
    m.host_bytes = double(plan.a_elements() + plan.b_elements() + plan.c_elements()) * sizeof(Real);
    const double host_free = double(host_available_memory_bytes());
    if (host_free > 0 && m.host_bytes > host_free) {
      const auto& sh = plan.shape;
      // a size as compare.sizes sets it: m = n = size, and k = size too unless the product is a Gram matrix
      const auto side = largest_fitting(std::max({sh.m, sh.n, sh.k}), host_free, [&](std::int64_t size) {
        const double s = double(size), k = sh.gram ? double(sh.k) : s;
        return (s * k + (sh.gram ? 0.0 : k * s) + s * s) * double(sizeof(Real));
      });
      require_host_bytes(m.host_bytes, host_free, plan.config->source.string(),
                         fmt::format("the {} product's A, B and C", plan.size_label),
                         fmt::format("a product of size at most {} fits (gemm.m = gemm.n{} = {})", side,
                                     sh.gram ? "" : " = gemm.k", side));
    }
    if constexpr (Backend::is_gpu) {
      const double free = double(Backend::describe().free_memory_bytes);
      const double budget = plan.device_budget > 0 ? std::min(plan.device_budget, free) : free;
      const GemmPartition part = gemm_partition_for(plan, budget, sizeof(Real));
      if (!part.feasible())
        throw NotEnoughMemory(plan.config->source.string() + ": " + gemm_budget_refusal(plan, budget, sizeof(Real)));
      m.device_bytes = double(part.elements) * sizeof(Real);
    }
    return m;
  }

  GemmSimulation(const GemmPlan& plan, const RunRequest&, RunResult& res) : plan_(plan), sh_(plan.shape) {
    const auto hw = Backend::describe();
    const double host_bytes = double(plan.a_elements() + plan.b_elements() + plan.c_elements()) * sizeof(Real);
    const double host_free = double(host_available_memory_bytes());
    if (host_free > 0 && host_bytes > host_free)
      throw std::runtime_error(fmt::format("the {} product needs {:.0f} bytes ({:.2f} GiB) of host memory for A, B and "
                                           "C; the host has {:.0f} bytes free", plan.size_label, host_bytes,
                                           host_bytes / 1073741824.0, host_free));
    auto no_init = [](const char* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };
    a_ = HostReals(no_init("gemm_A"), plan.a_elements());
    if (!sh_.gram) b_ = HostReals(no_init("gemm_B"), plan.b_elements());
    c_ = HostReals(no_init("gemm_C"), plan.c_elements());
    fill(a_, 0);
    if (!sh_.gram) fill(b_, 1);
    Kokkos::deep_copy(c_, Real(0));
    res.connections = plan.flops();
    res.values.emplace_back("flops_per_multiply", plan.flops());
    if constexpr (Backend::is_gpu) {
      const double free = double(hw.free_memory_bytes);
      budget_ = plan.device_budget > 0 ? std::min(plan.device_budget, free) : free;
      part_ = gemm_partition_for(plan, budget_, sizeof(Real));
      if (!part_.feasible()) throw std::runtime_error(gemm_budget_refusal(plan, budget_, sizeof(Real)));
      link_ = host_to_device_bytes_per_s<Backend>();
      measure_in_core(res);  // before the blocks are allocated: the whole product may need most of the device
      loop_.emplace(plan.operands(), part_, plan.double_buffered);
      loop_->warm_up();
      res.strategy = fmt::format("out-of-core (Algorithm 4): t_m = {}, t_k = {} (m_max {}, k_max {}), {} block copies, "
                                 "{} buffering, budget {:.0f} bytes",
                                 part_.t_m, part_.t_k, part_.m_max, part_.k_max, part_.transfers,
                                 plan.double_buffered ? "double" : "single", budget_);
      for (const auto& [k, v] : std::initializer_list<std::pair<const char*, double>>{
               {"t_m", double(part_.t_m)}, {"t_k", double(part_.t_k)}, {"m_max", double(part_.m_max)},
               {"k_max", double(part_.k_max)}, {"transfers", double(part_.transfers)}, {"device_budget", budget_},
               {"link_bytes_per_s", link_}})
        res.values.emplace_back(k, v);
    } else {
      threads_ = hw.parallel_units;
      blas_threads_set_ = set_host_blas_threads(threads_);
      res.strategy = fmt::format("library GEMM on host memory ({}, {} thread{}{})", host_blas_name(), threads_,
                                 threads_ == 1 ? "" : "s", blas_threads_set_ ? "" : ", thread count not settable");
    }
  }

  std::int64_t steps_per_call() const { return 1; }
  std::int64_t steps_done() const { return steps_; }
  void fence() { Exec().fence(); }
  std::int64_t device_bytes() const { return loop_ ? loop_->device_bytes() : 0; }
  Reader state() const { return Reader{CView(c_.data(), c_.extent(0))}; }

  void step() {
    if constexpr (Backend::is_gpu) {
      loop_->run(a_.data(), sh_.gram ? nullptr : b_.data(), c_.data());
    } else {
      set_host_blas_threads(threads_);  // another run in this process may have changed it
      const HostBlock2 A(a_.data(), plan_.transpose_a ? sh_.k : sh_.m, plan_.transpose_a ? sh_.m : sh_.k);
      const HostBlock2 C(c_.data(), sh_.m, sh_.n);
      if (sh_.gram) {
        KokkosBlas::gemm("N", "T", Real(1), A, A, Real(0), C);
      } else {
        const HostBlock2 B(b_.data(), plan_.transpose_b ? sh_.n : sh_.k, plan_.transpose_b ? sh_.k : sh_.n);
        KokkosBlas::gemm(plan_.transpose_a ? "T" : "N", plan_.transpose_b ? "T" : "N", Real(1), A, B, Real(0), C);
      }
    }
    ++steps_;
  }

  bool spikes_due(std::int64_t, std::int64_t, bool) const { return false; }
  SpikeEvents drain_spikes(bool) { return {}; }

  void finish(RunResult& res) {
    const double moved = loop_ ? loop_->bytes_moved() : 0;
    res.values.emplace_back("bytes_moved", moved);
    const double per = res.simulate_s / double(std::max<std::int64_t>(1, steps_));
    res.values.emplace_back("gflops", plan_.flops() / per / 1e9);
    res.figures.emplace_back("flops", plan_.flops() * double(steps_));
    // the arithmetic intensity over the host-device link: the out-of-core GEMM's roofline is the link's bandwidth
    if (moved > 0) res.values.emplace_back("flop_per_link_byte", plan_.flops() * double(steps_) / moved);
    if constexpr (Backend::is_gpu) {
      const double link_s = link_ > 0 ? moved / double(std::max<std::int64_t>(1, steps_)) / link_ : 0;
      res.values.emplace_back("link_s", link_s);
      if (in_core_s_ > 0) {
        res.values.emplace_back("in_core_gemm_s", in_core_s_);
        res.values.emplace_back("bound_ratio", per / std::max(link_s, in_core_s_));
      }
    }
  }

 private:
  using HostReals = Kokkos::View<Real*, Host>;
  using DeviceReals = Kokkos::View<Real*, Mem>;

  // Entries uniform in [-1, 1) from (seed, matrix, index): identical on every backend before rounding to Real.
  void fill(const HostReals& v, std::uint64_t matrix) const {
    const std::uint64_t seed = plan_.seed;
    Real* p = v.data();
    Kokkos::parallel_for("kbrain::gemm::fill",
                         Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<std::int64_t>>(0, v.extent(0)),
                         [=](std::int64_t i) { p[i] = Real(2.0 * counter_uniform(seed, matrix, std::uint64_t(i)) - 1.0); });
  }

  // The library's own rate for this product on device-resident data (when the whole product fits beside the
  // blocks): the in-core compute time the out-of-core loop is measured against.
  void measure_in_core(RunResult& res) {
    const double need = double(plan_.a_elements() + plan_.b_elements() + plan_.c_elements()) * sizeof(Real);
    const double free = double(Backend::describe().free_memory_bytes);
    if (need > 0.9 * free) return;
    auto no_init = [](const char* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };
    DeviceReals a(no_init("gemm_A_full"), plan_.a_elements()), c(no_init("gemm_C_full"), plan_.c_elements());
    DeviceReals b;
    Kokkos::deep_copy(a, a_);
    if (!sh_.gram) {
      b = DeviceReals(no_init("gemm_B_full"), plan_.b_elements());
      Kokkos::deep_copy(b, b_);
    }
    auto once = [&] {
      const Block2 A(a.data(), plan_.transpose_a ? sh_.k : sh_.m, plan_.transpose_a ? sh_.m : sh_.k);
      const Block2 C(c.data(), sh_.m, sh_.n);
      if (sh_.gram) {
        KokkosBlas::gemm("N", "T", Real(1), A, A, Real(0), C);
      } else {
        const Block2 B(b.data(), plan_.transpose_b ? sh_.n : sh_.k, plan_.transpose_b ? sh_.k : sh_.n);
        KokkosBlas::gemm(plan_.transpose_a ? "T" : "N", plan_.transpose_b ? "T" : "N", Real(1), A, B, Real(0), C);
      }
      Kokkos::fence();
    };
    once();  // library start-up (handle creation, kernel selection)
    Stopwatch watch;
    once();
    in_core_s_ = watch.seconds();
    res.values.emplace_back("in_core_gflops", plan_.flops() / in_core_s_ / 1e9);
  }

  const GemmPlan& plan_;
  GemmShape sh_;
  HostReals a_, b_, c_;
  GemmPartition part_;
  std::optional<OutOfCoreGemm<Backend, Real>> loop_;
  double budget_ = 0, link_ = 0, in_core_s_ = 0;
  int threads_ = 1;
  bool blas_threads_set_ = false;
  std::int64_t steps_ = 0;
};

}  // namespace kbrain::galbraith
