// The orders in which the dense plastic AdEx model adds the m̄ summands (models/adex_costa/adex_sum_order.hpp): runs
// in index order, and a chunk's pairwise tree as the synapse pass and the step end add it, on every backend.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "models/adex_costa/adex_model.hpp"
#include "models/adex_costa/adex_synapse_groups.hpp"
#include "tests/adex_pass_states.hpp"
#include "tests/backend_types.hpp"
#include "tests/device_views.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::adex;
using test::host;
using test::mixed_pass_state;

}  // namespace

TEST_SUITE("adex_costa") {
  // ordered_sum loads its entries in batches (a partial last one included) but must add them one by one in index
  // order: the m̄ tree's definition. Summands of very different sizes make any other order give other bits.
  TEST_CASE("ordered sums add in index order, whatever the batch boundaries") {
    Kokkos::View<double*, Kokkos::HostSpace> sums("sums", 300);
    Kokkos::View<long long*, Kokkos::HostSpace> counts("counts", 300);
    for (std::int64_t k = 0; k < 300; ++k) {
      sums(k) = std::ldexp(1.0 + 0.001 * double(k % 17), int(k % 23) * 3 - 30);
      counts(k) = k % 5;
    }
    int reordered_differs = 0;
    for (const std::int64_t first : {0, 1, 7, 16}) {
      for (const std::int64_t length : {0, 1, 15, 16, 17, 40, 256, 283}) {
        double naive = 0, sum = -1;
        long long naive_count = 0, count = -1;
        for (std::int64_t k = first; k < first + length; ++k) naive += sums(k), naive_count += counts(k);
        ordered_sum(sums, counts, first, first + length, sum, count);
        CHECK(std::memcmp(&sum, &naive, sizeof(double)) == 0);
        CHECK(count == naive_count);
        double backwards = 0;  // the same summands in another order: other bits (so the check above can fail)
        for (std::int64_t k = first + length - 1; k >= first; --k) backwards += sums(k);
        reordered_differs += backwards != naive;
      }
    }
    CHECK(reordered_differs > 0);
  }

  // A chunk's m̄ sum is the pairwise tree over its 256 columns (adex_sum_order.hpp): the pass adds each sum group's 32
  // columns (on GPUs by the warp's exchange of registers, on CPUs in a loop), the step end the chunk's groups. Written
  // out here as the definition, on every backend, for the product's pass (GPUs: narrow at this size; host backends:
  // SynapsePassChunked), the product's narrow and wide group passes (1 and 2 columns a thread), and the step end of
  // each backend (StepEndTeams on GPUs, StepEnd on host backends). Each (row block, column) has one connected row, so
  // a column's summand is one product, which the test computes as the kernel does; summands of very different sizes
  // make the plain in-order sum give other bits (so the check can fail). 600 columns: two whole chunks and a partial one of 88 (three groups,
  // the last partial); two row blocks, the second partial; a third of the columns silent.
  template <class Backend>
  void check_chunk_tree(int variant) {
    using Exec = typename Backend::execution_space;
    using Mem = typename Backend::memory_space;
    using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
    CAPTURE(variant);
    const std::int64_t n_pre = kRowsPerBlock + 36, n_post = 600;
    const auto p = KernelParams<double>::from(AdexCostaParams{}, 1.0);
    const AdexState<float, Mem> st = mixed_pass_state<Exec>(n_pre, n_post);
    REQUIRE(st.chunks == 3);
    auto s = st;
    Kokkos::parallel_for(
        "one_row_a_column", Range(0, n_pre * st.pitch), KOKKOS_LAMBDA(const std::int64_t k) {
          const std::int64_t i = k / s.pitch, j = k - i * s.pitch;
          s.conn(s.flag_slot(i, j)) = i % kRowsPerBlock == j % kRowsPerBlock;
          if (j == 0) s.ffp_now(i) = 1.0 + double(i % 7) / 7.0;
          if (i == 0 && j < s.n_post) {
            s.post_flag(j) = j % 3 != 0;
            double scale = 1.0 / 1073741824.0;  // 2^-30, then 8^(j % 23): exact
            for (std::int64_t q = 0; q < j % 23; ++q) scale *= 8.0;
            s.fbn_before(j) = (1.0 + 0.001 * double(j % 17)) * scale;
          }
        });
    const SynapsePass<float, Mem> pass{st, p, 0, n_pre, true};
    if (variant == 0) {
      if constexpr (Backend::is_gpu)
        launch_gpu_synapse_pass(Exec(), "product", pass, ConnectionRule{}, st.blocks);
      else
        Kokkos::parallel_for("product", Range(0, st.blocks * st.chunks), SynapsePassChunked<float, Mem>{pass});
    } else if (variant == 1) {
      const NarrowSynapsePass<float, Mem> groups{pass};
      Kokkos::parallel_for("narrow", Range(0, groups.launch_size(st.blocks)), groups);
    } else {
      const WideSynapsePass<float, Mem> groups{pass};
      Kokkos::parallel_for("wide", Range(0, groups.launch_size(st.blocks)), groups);
    }
    if constexpr (Backend::is_gpu) {
      const StepEndTeams<float, Mem, Exec> end{st, true, true};
      Kokkos::parallel_for("end", end.policy(), end);
    } else {
      const StepEnd<float, Mem> end{st, true, true};
      Kokkos::parallel_for("end", Range(0, end.size()), end);
    }
    const auto ffp_now = host(st.ffp_now), fbn = host(st.fbn_before), sums = host(st.chunk_sum);
    const auto counts = host(st.chunk_count);
    int plain_differs = 0, nonzero = 0;
    for (std::int64_t b = 0; b < st.blocks; ++b)
      for (std::int64_t c = 0; c < st.chunks; ++c) {
        CAPTURE(b);
        CAPTURE(c);
        double node[256];
        long long count[256];
        double plain = 0;
        for (std::int64_t e = 0; e < 256; ++e) {
          const std::int64_t j = c * 256 + e, i = b * kRowsPerBlock + j % kRowsPerBlock;
          const bool adds = j < n_post && j % 3 != 0 && i < n_pre;
          node[e] = adds ? p.AFFp * ffp_now(i) * fbn(j) : 0.0;  // post_term
          count[e] = adds ? 1 : 0;
          plain += node[e];
        }
        for (int h = 1; h < 256; h *= 2)
          for (int m = 0; m < 256; m += 2 * h) node[m] += node[m + h], count[m] += count[m + h];
        const std::int64_t k = b * st.chunks + c;
        CHECK(std::memcmp(&sums(k), &node[0], sizeof(double)) == 0);
        CHECK(counts(k) == count[0]);
        plain_differs += plain != node[0];
        nonzero += count[0] > 0;
      }
    CHECK(plain_differs > 0);
    CHECK(nonzero == 6);
  }

  TEST_CASE_TEMPLATE_DEFINE("a chunk's m̄ sum is the pairwise tree over its columns", Backend, adex_chunk_tree) {
    for (const int variant : {0, 1, 2}) check_chunk_tree<Backend>(variant);
  }
  TEST_CASE_TEMPLATE_APPLY(adex_chunk_tree, KBRAIN_TEST_BACKENDS);
}
