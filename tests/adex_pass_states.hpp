#pragma once
// Synapse-pass states for the AdEx loop-variant tests (test_adex_kernels.cpp, test_adex_sum_order.cpp): rows, columns
// and owed m̄ parts mixed, varied synapse values, in any layout of the values.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "models/adex_costa/adex_model.hpp"
#include "models/adex_costa/adex_synapse_groups.hpp"

namespace kbrain::test {

using adex::AdexState;
using adex::ConnectionRule;

// A state for one synapse pass with rows, columns and owed m̄ parts mixed, and varied synapse values; `tiles`: the
// values' layout (AdexState::allocate; by default the memory space's), the values of (i, j) the same in every layout.
template <class Exec>
AdexState<float, typename Exec::memory_space> mixed_pass_state(
    std::int64_t n_pre, std::int64_t n_post,
    int tiles = AdexState<float, typename Exec::memory_space>::default_tile_shift()) {
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  AdexState<float, typename Exec::memory_space> st;
  st.allocate(n_pre, 0, n_pre, n_post, false, true, tiles);
  auto s = st;
  Kokkos::parallel_for(
      "fill_rows", Range(0, n_pre), KOKKOS_LAMBDA(const std::int64_t i) {
        s.pre_flag(i) = i % 3 != 0;
        s.decay_r(i) = 0.9 - 1e-3 * double(i % 11);
        s.decay_u(i) = 0.8 + 1e-3 * double(i % 7);
        s.ffp_before(i) = 1.5 + 0.01 * double(i % 5);
        s.ffp_now(i) = 2.5 - 0.01 * double(i % 3);
      });
  Kokkos::parallel_for(
      "fill_columns", Range(0, n_post), KOKKOS_LAMBDA(const std::int64_t j) {
        s.post_flag(j) = j % 4 == 1;
        s.post_prev(j) = j % 5 == 2;
        s.fbp_before(j) = 0.7 + 0.01 * double(j % 6);
        s.fbn_before(j) = 0.3 + 0.02 * double(j % 4);
        if (j == 0) s.mbar(0) = 0.01;
      });
  const std::int64_t pitch = st.pitch;
  Kokkos::parallel_for(
      "fill_synapses", Range(0, n_pre * pitch), KOKKOS_LAMBDA(const std::int64_t k) {  // the padding too
        const std::int64_t i = k / pitch, j = k - i * pitch, id = s.slot(i, j);
        s.conn(s.flag_slot(i, j)) = k % 7 != 0;
        s.A(id) = float(0.5 + 1e-3 * double(k % 97));
        s.U(id) = float(0.3 + 1e-3 * double(k % 13));
        s.R(id) = float(0.9 - 1e-3 * double(k % 17));
        s.u(id) = float(0.2 + 1e-3 * double(k % 19));
      });
  return st;
}

// mixed_pass_state with the connection flags set by `rule` (unless it is the stored flags').
template <class Exec>
AdexState<float, typename Exec::memory_space> rule_pass_state(std::int64_t n_pre, std::int64_t n_post,
                                                              const ConnectionRule& rule) {
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  AdexState<float, typename Exec::memory_space> st = mixed_pass_state<Exec>(n_pre, n_post);
  if (!rule.stored()) {
    auto s = st;
    Kokkos::parallel_for(
        "rule_flags", Range(0, n_pre * n_post), KOKKOS_LAMBDA(const std::int64_t k) {
          const std::int64_t i = k / n_post, j = k - i * n_post;
          s.conn(s.flag_slot(i, j)) = rule.connected(i, j) ? 1 : 0;
        });
  }
  return st;
}

}  // namespace kbrain::test
