// Galbraith 2010's out-of-core matrix multiply (models/galbraith_gemm/): the partition solver against the spec's
// test vectors and its own constraints; Algorithm 4's loop on every backend (blocks in backend memory, ragged edges,
// every operator combination, the Gram product, single and double buffering) against a plain triple loop; whole runs
// through the runner agreeing across backends; the refusals of budgets and operators.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <dirent.h>
#include <sched.h>
#include <unistd.h>

#include "backends/host_blas.hpp"

#include "core/rng/counter_rng.hpp"
#include "models/galbraith_gemm/gemm_model.hpp"
#include "models/galbraith_gemm/gemm_out_of_core.hpp"
#include "models/registry.hpp"
#include "models/runtime/run_dispatch.hpp"
#include "tests/backend_types.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::galbraith;

constexpr double MiB = 1048576.0;

GemmPartition at_budget(const GemmShape& s, double mib) { return solve_partition(s, block_elements(mib * MiB, 15 * MiB, 4)); }

// C = op(A)·op(B) by the definition, in double.
std::vector<double> reference_product(const GemmOperands& o, const std::vector<double>& a, const std::vector<double>& b) {
  const auto& s = o.shape;
  std::vector<double> c(std::size_t(s.m * s.n), 0.0);
  auto A = [&](std::int64_t i, std::int64_t l) { return o.transpose_a ? a[std::size_t(l * s.m + i)] : a[std::size_t(i * s.k + l)]; };
  auto B = [&](std::int64_t l, std::int64_t j) {
    if (s.gram) return a[std::size_t(j * s.k + l)];
    return o.transpose_b ? b[std::size_t(j * s.k + l)] : b[std::size_t(l * s.n + j)];
  };
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      double sum = 0;
      for (std::int64_t l = 0; l < s.k; ++l) sum += A(i, l) * B(l, j);
      c[std::size_t(i * s.n + j)] = sum;
    }
  return c;
}

// The thread ids of this process (/proc/self/task).
std::vector<pid_t> process_threads() {
  std::vector<pid_t> ids;
  if (DIR* d = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(d))
      if (e->d_name[0] != '.') ids.push_back(static_cast<pid_t>(std::stol(e->d_name)));
    closedir(d);
  }
  return ids;
}

std::string gemm_toml(const std::string& gemm, const std::string& simulation = "") {
  return "name = \"g\"\n[model]\nkind = \"galbraith_gemm\"\n[simulation]\nsteps = 1\n" + simulation + "[gemm]\n" + gemm;
}

}  // namespace

TEST_SUITE("galbraith_gemm") {
  TEST_CASE("partition: the spec's test vectors (Algorithm 5 as the study's code runs it, 15 MiB of work)") {
    const GemmShape data1{20000, 20000, 20000, false}, data2{1000, 1000, 400000, false};
    auto check = [](const GemmPartition& p, std::int64_t t_m, std::int64_t t_k, std::int64_t t) {
      CHECK(p.t_m == t_m);
      CHECK(p.t_k == t_k);
      CHECK(p.transfers == t);
    };
    check(at_budget(data1, 896), 4, 4, 36);
    check(at_budget(data2, 896), 1, 4, 9);
    check(at_budget(data1, 512), 6, 8, 102);
    check(at_budget(data2, 512), 1, 7, 15);
    const GemmPartition gamma = at_budget(GemmShape{1000, 1000, 400000, true}, 896);
    CHECK(gamma.t_m == 1);
    CHECK(gamma.t_k == 2);
    CHECK(gamma.transfers == 3);
  }

  TEST_CASE("partition: blocks fit, cover the product; squares split k from 9000 and m from 13 000 (1000 steps)") {
    const std::int64_t S = block_elements(896 * MiB, 15 * MiB, 4);
    for (std::int64_t n = 1000; n <= 20000; n += 1000) {
      const GemmShape s{n, n, n, false};
      const GemmPartition p = solve_partition(s, S);
      REQUIRE(p.feasible());
      CHECK(p.m_max * p.k_max + p.k_max * n + p.m_max * n <= S);  // (5.7)
      CHECK(p.elements <= S);
      CHECK(p.t_m * p.m_max >= n);
      CHECK(p.t_k * p.k_max >= n);
      CHECK((p.t_k > 1) == (n >= 9000));   // the thesis' "9k mark"
      CHECK((p.t_m > 1) == (n >= 13000));  // the spec's 12 500-13 000 (the thesis: 15 000, free memory unknown)
      std::int64_t rows = 0, inner = 0;
      for (const GemmBlock& b : gemm_blocks(s, p)) {
        if (b.row_block == 0) inner += b.width;
        if (b.first_inner) rows += b.rows;
        CHECK(b.rows >= 1);
        CHECK(b.width >= 1);
      }
      CHECK(rows == n);
      CHECK(inner == n);
    }
    // The least S that fits anything, exactly.
    for (const GemmShape s : {GemmShape{300, 200, 1000, false}, GemmShape{300, 300, 1000, true}}) {
      const std::int64_t least = minimum_block_elements(s);
      CHECK(solve_partition(s, least).feasible());
      CHECK_FALSE(solve_partition(s, least - 1).feasible());
    }
    CHECK(block_elements(10 * MiB, 15 * MiB, 4) == 0);
  }

  TEST_CASE_TEMPLATE_DEFINE("Algorithm 4 on every backend: ragged blocks, operators, Gram, single and double buffering",
                            Backend, gemm_loop) {
    struct Case {
      GemmOperands ops;
      std::int64_t S;
    };
    const std::vector<Case> cases = {
        {{{37, 23, 51, false}, false, false}, 900},   // several row and inner blocks, ragged edges
        {{{37, 23, 51, false}, true, false}, 900},
        {{{37, 23, 51, false}, false, true}, 900},
        {{{37, 23, 51, false}, true, true}, 900},
        {{{29, 29, 70, true}, false, false}, 29 * 29 + 29 * 9},  // Gram: one operand, inner blocks of 9
        {{{16, 16, 16, false}, false, false}, 100000},            // in core: one block
    };
    for (const Case& c : cases)
      for (const bool twice : {false, true}) {
        const GemmShape& s = c.ops.shape;
        const GemmPartition p = solve_partition(s, c.S);
        REQUIRE(p.feasible());
        std::vector<double> a(std::size_t(s.m * s.k)), b(s.gram ? 0 : std::size_t(s.k * s.n));
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = 2 * counter_uniform(7, 0, i) - 1;
        for (std::size_t i = 0; i < b.size(); ++i) b[i] = 2 * counter_uniform(7, 1, i) - 1;
        std::vector<double> c_host(std::size_t(s.m * s.n), -99.0);
        OutOfCoreGemm<Backend, double> loop(c.ops, p, twice);
        Kokkos::View<double*, typename Backend::staging_memory_space> A("A", a.size()), B("B", b.size()), C("C", c_host.size());
        auto hA = Kokkos::create_mirror_view(A), hB = Kokkos::create_mirror_view(B);
        for (std::size_t i = 0; i < a.size(); ++i) hA(i) = a[i];
        for (std::size_t i = 0; i < b.size(); ++i) hB(i) = b[i];
        Kokkos::deep_copy(A, hA);
        Kokkos::deep_copy(B, hB);
        Kokkos::deep_copy(C, -99.0);  // every entry must be written
        loop.warm_up();                // the shapes' first use moves nothing and leaves no trace in the product
        CHECK(loop.bytes_moved() == 0.0);
        loop.run(A.data(), s.gram ? nullptr : B.data(), C.data());
        loop.run(A.data(), s.gram ? nullptr : B.data(), C.data());  // repeatable: beta = 0 on each row block's first block
        auto hC = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
        const std::vector<double> want = reference_product(c.ops, a, b);
        double worst = 0;
        for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(hC(i) - want[i]));
        INFO("m n k = ", s.m, " ", s.n, " ", s.k, " gram ", s.gram, " opA ", c.ops.op_a(), " opB ", c.ops.op_b(),
             " t_m ", p.t_m, " t_k ", p.t_k, " double buffering ", twice);
        CHECK(worst < 1e-12);
        // Bytes moved: each A block once per row block, B blocks once per row block (not for Gram), C once.
        const double per_run = double(s.m * s.k) + (s.gram ? 0.0 : double(p.t_m) * double(s.k * s.n)) + double(s.m * s.n);
        CHECK(loop.bytes_moved() == doctest::Approx(2 * per_run * sizeof(double)));
      }
  }
  TEST_CASE_TEMPLATE_APPLY(gemm_loop, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("whole runs: the library GEMM / out-of-core loop agrees with the serial run", Backend,
                            gemm_runs) {
    const ExperimentConfig cfg = parse_model_experiment(
        gemm_toml("m = 96\nn = 80\nk = 200\nop_b = \"t\"\n", "device_budget = 200000\nmemory_work = 0\n"), "g.toml");
    const GemmPlan plan = make_gemm_plan(cfg, {});
    RunRequest request;
    request.probe_cells = GalbraithGemmModel::probe_cells(plan);
    request.progress = false;
    const RunResult ref = run_on<GalbraithGemmModel>(plan, "serial", Precision::Double, request);
    for (const Precision prec : {Precision::Double, Precision::Float}) {
      const RunResult r = run_on<GalbraithGemmModel>(plan, Backend::name, prec, request);
      REQUIRE(r.probes.size() == ref.probes.size());
      REQUIRE(r.probes.size() >= 16);
      double worst = 0, scale = 0;
      for (std::size_t k = 0; k < r.probes.size(); ++k) {
        worst = std::max(worst, std::fabs(r.probes[k] - ref.probes[k]));
        scale = std::max(scale, std::fabs(ref.probes[k]));
      }
      CHECK(scale > 1);  // sums of 200 products of entries in [-1, 1): not all tiny
      CHECK(worst / scale < (prec == Precision::Double ? 1e-12 : 1e-5));
      CHECK(r.value("gflops") > 0);
      if (Backend::is_gpu) {
        CHECK(r.value("t_m") * r.value("t_k") > 1);  // the budget forces a partition
        CHECK(r.value("bytes_moved") > 0);
      }
    }
  }
  TEST_CASE_TEMPLATE_APPLY(gemm_runs, KBRAIN_TEST_BACKENDS);

  TEST_CASE("refusals name the key: budgets that fit no partition, Gram with operators, sweeps of k") {
    auto error_of = [](const std::string& toml, const PlanRequest& at = {}) {
      try {
        const auto experiment = parse_model_experiment(toml, "bad.toml");
        make_gemm_plan(experiment, at);
      } catch (const ConfigError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    const std::string small = error_of(gemm_toml("m = 1000\nn = 1000\nk = 1000\n", "device_budget = 15740000\n"));
    CHECK(small.find("bad.toml") != std::string::npos);
    CHECK(small.find("simulation.device_budget") != std::string::npos);
    CHECK(small.find("needs at least") != std::string::npos);
    CHECK(error_of(gemm_toml("m = 1000\nn = 1000\nk = 1000\n", "device_budget = 15740000\nbuffering = \"single\"\n"))
              .find("needs at least") != std::string::npos);  // 15 MiB of work leave less than 2n + 1 elements
    CHECK(error_of(gemm_toml("m = 100\nk = 10\nproduct = \"gram\"\nop_a = \"t\"\n")).find("gemm.product") !=
          std::string::npos);
    CHECK(error_of(gemm_toml("m = 100000000\nn = 100000000\nk = 10\n")).find("gemm.k") != std::string::npos);
    CHECK(error_of(gemm_toml("m = 10\nn = 10\nk = 10\n"), PlanRequest{0, 2.5, 0, ""}).find("whole numbers") !=
          std::string::npos);
    CHECK(error_of(gemm_toml("m = 10\nn = 10\nk = 10\nop_a = \"x\"\n")).find("op_a") != std::string::npos);
    CHECK(error_of(gemm_toml("m = 0\nn = 10\nk = 10\n")).find("gemm.m") != std::string::npos);
  }

  TEST_CASE("host BLAS: workers started from a thread bound to one CPU may use every CPU of the process") {
    // The OpenMP backend's thread is bound to one CPU under OMP_PROC_BIND; BLAS workers that inherited that mask
    // would all share it (an OpenMP GEMM no faster than a Serial one).
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || host_blas_threads() < 1) {
      MESSAGE("one CPU, or a host BLAS that does not report its threads: nothing to check");
      return;
    }
    cpu_set_t saved, one;
    REQUIRE(sched_getaffinity(0, sizeof(saved), &saved) == 0);
    int first = 0;
    while (!CPU_ISSET(first, &saved)) ++first;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    REQUIRE(sched_setaffinity(0, sizeof(one), &one) == 0);
    const int threads = host_blas_threads();
    const std::vector<pid_t> before = process_threads();
    REQUIRE(set_host_blas_threads(threads + 2));  // more workers than it had: the library starts them now
    std::vector<pid_t> started;
    for (const pid_t t : process_threads())
      if (std::find(before.begin(), before.end(), t) == before.end()) started.push_back(t);
    for (const pid_t t : started) {
      cpu_set_t mask;
      REQUIRE(sched_getaffinity(t, sizeof(mask), &mask) == 0);
      CHECK(CPU_COUNT(&mask) > 1);
    }
    sched_setaffinity(0, sizeof(saved), &saved);
    set_host_blas_threads(threads);
    if (started.empty()) MESSAGE("the host BLAS started no thread: nothing to check");
  }
}
