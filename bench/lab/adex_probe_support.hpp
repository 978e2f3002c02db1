#pragma once
// What the AdEx pass probes share (adex_pass_probe.cpp, adex_layout_probe.cpp): the benchmark state (every row and
// column firing and owing m̄, varied synapse values), the synapse values read back, the timing (median of 5 runs of
// 20 passes) and the yardstick (Kokkos::deep_copy of as many bytes, read + write). CUDA only, like the probes.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "models/adex_costa/adex_state.hpp"

namespace kbrain::adex::probe {

// CUDA in the probes' builds; the default space elsewhere, so that a host build can compile them as a check.
using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;

// all_connected false: every seventh slot unconnected (the flags must be read); true: connections by the rule `all`.
template <class Real>
inline void fill(AdexState<Real, Mem>& st, bool all_connected = false) {
  Kokkos::deep_copy(st.pre_flag, 1);
  Kokkos::deep_copy(st.post_flag, 1);
  Kokkos::deep_copy(st.post_prev, 1);
  Kokkos::deep_copy(st.mbar, 0.01);
  Kokkos::deep_copy(st.decay_r, 0.9);
  Kokkos::deep_copy(st.decay_u, 0.8);
  Kokkos::deep_copy(st.ffp_before, 1.5);
  Kokkos::deep_copy(st.ffp_now, 2.5);
  Kokkos::deep_copy(st.fbp_before, 0.7);
  Kokkos::deep_copy(st.fbn_before, 0.3);
  auto s = st;
  const std::int64_t pitch = st.pitch;
  Kokkos::parallel_for(
      "fill", Range(0, st.rows * pitch), KOKKOS_LAMBDA(const std::int64_t k) {  // the padding too
        const std::int64_t i = k / pitch, j = k - i * pitch, id = s.slot(i, j);  // k: the slot in arrays
        s.conn(s.flag_slot(i, j)) = all_connected || k % 7 != 0 ? 1 : 0;
        s.A(id) = Real(0.5 + 1e-9 * double(k % 1000));
        s.U(id) = Real(0.3);
        s.R(id) = Real(0.9);
        s.u(id) = Real(0.2);
      });
  Kokkos::fence();
}

// R, u, U, A of every row's pitch slots, in that order, row by row, whatever the state's layout.
template <class Real>
std::vector<Real> bits(const AdexState<Real, Mem>& st) {
  std::vector<Real> out;
  out.reserve(std::size_t(4 * st.rows * st.pitch));
  for (const auto& v : std::vector<Kokkos::View<Real*, Mem>>{st.R, st.u, st.U, st.A}) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    for (std::int64_t i = 0; i < st.rows; ++i)
      for (std::int64_t j = 0; j < st.pitch; ++j) out.push_back(h(std::size_t(st.slot(i, j))));
  }
  return out;
}

inline double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The synapse bits after the state is filled and `launch` (one pass) has run 3 times.
template <class Real, class Launch>
std::vector<Real> bits_after_three(AdexState<Real, Mem>& st, const Launch& launch, bool all_connected = false) {
  fill(st, all_connected);
  for (int k = 0; k < 3; ++k) launch();
  Kokkos::fence();
  return bits(st);
}

// Seconds per pass: the median of 5 runs of 20 launches, one fence per run.
template <class Launch>
double median_s(const Launch& launch) {
  std::vector<double> t;
  for (int run = 0; run < 5; ++run) {
    Kokkos::fence();
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 20; ++k) launch();
    Kokkos::fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 20);
  }
  return median(t);
}

inline void copy_yardstick(std::int64_t bytes) {
  Kokkos::View<double*, Mem> a("a", bytes / 16), b("b", bytes / 16);
  Kokkos::deep_copy(a, 1.0);
  std::vector<double> t;
  for (int run = 0; run < 5; ++run) {
    Kokkos::fence();
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 10; ++k) Kokkos::deep_copy(b, a);
    Kokkos::fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 10);
  }
  std::printf("copy %.2f GB: %.1f GB/s read + write\n", double(bytes) / 1e9, double(bytes) / median(t) / 1e9);
}

}  // namespace kbrain::adex::probe
