#pragma once
// One forward-Euler step n -> n+1 of every IO cell (docs/models/inferior-olive.md). All right-hand sides read the
// step-n state in `cur`; gates are advanced first and each voltage uses the new gates with the old voltages.
// Results go to `next`. Optionally detects upward crossings of V_axon through a threshold (spikes).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "core/detected.hpp"
#include "core/kokkos_compat.hpp"
#include "models/olive/cell/io_math.hpp"
#include "models/olive/cell/io_parameters.hpp"
#include "models/olive/cell/io_state.hpp"
#include "models/olive/launch/olive_launch_traits.hpp"

namespace kbrain::olive {

// Constants converted once to the working precision.
template <class Real>
struct IoConstants {
  Real inv_c_m, g_na_s, g_kdr_s, g_k_s, g_ls, g_k_ca, g_cah, g_ld, g_h, g_na_a, g_k_a, g_la;
  Real g_int_p1d, g_int_p1, g_int_p2d, g_int_p2;  // G_INT/(1-P1), G_INT/P1, G_INT/(1-P2), G_INT/P2
  Real v_na, v_k, v_ca, v_h, v_l;
  Real dt, dt_fast_k;  // dt_fast_k: literal 0.05 (reference) or dt (corrected)

  static IoConstants make(const IoParameters& p) {
    IoConstants c;
    c.inv_c_m = Real(1.0 / p.c_m);
    c.g_na_s = Real(p.g_na_s); c.g_kdr_s = Real(p.g_kdr_s); c.g_k_s = Real(p.g_k_s); c.g_ls = Real(p.g_ls);
    c.g_k_ca = Real(p.g_k_ca); c.g_cah = Real(p.g_cah); c.g_ld = Real(p.g_ld); c.g_h = Real(p.g_h);
    c.g_na_a = Real(p.g_na_a); c.g_k_a = Real(p.g_k_a); c.g_la = Real(p.g_la);
    c.g_int_p1d = Real(p.g_int / (1 - p.p1));
    c.g_int_p1 = Real(p.g_int / p.p1);
    c.g_int_p2d = Real(p.g_int / (1 - p.p2));
    c.g_int_p2 = Real(p.g_int / p.p2);
    c.v_na = Real(p.v_na); c.v_k = Real(p.v_k); c.v_ca = Real(p.v_ca); c.v_h = Real(p.v_h); c.v_l = Real(p.v_l);
    c.dt = Real(p.dt);
    c.dt_fast_k = p.gate_mode == GateStepMode::Reference ? Real(0.05) : Real(p.dt);
    return c;
  }
};

// Host backends run the step over chunks of kHostChunk cells: each compartment is one `omp simd` loop.
struct HostChunkTag {};
inline constexpr int kHostChunk = HostLaunch::host_chunk;

// Spike events found during one step, appended with an atomic counter; the host drains them (sorted) later.
template <class Mem>
struct SpikeSink {
  Kokkos::View<int, Mem> count;   // number of events appended so far (may exceed capacity)
  Kokkos::View<int*, Mem> events;  // step, cell, step, cell, ... (2 ints per event); extent 0 => detection off
  KOKKOS_INLINE_FUNCTION int capacity() const { return static_cast<int>(events.extent(0) / 2); }
};

// Host: the sink's events as (step, cell_of(cell)) sorted, and the sink emptied. Throws if it overflowed.
template <class Mem, class CellOf>
std::vector<std::pair<std::int64_t, std::int64_t>> drain_spike_sink(const SpikeSink<Mem>& sink, CellOf cell_of) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  if (sink.events.extent(0) == 0) return out;
  int n = 0;
  Kokkos::deep_copy(n, sink.count);
  if (n > sink.capacity()) throw std::logic_error("spike buffer overflow: drain_spikes() was not called often enough");
  if (n > 0) {
    auto sub = Kokkos::subview(sink.events, std::make_pair(0, 2 * n));  // only the filled part: one transfer
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sub);
    out.reserve(n);
    for (int k = 0; k < n; ++k) out.emplace_back(h(2 * k), cell_of(h(2 * k + 1)));
    std::sort(out.begin(), out.end());
    Kokkos::deep_copy(sink.count, 0);
  }
  return out;
}

// One cell's state variables outside the state Views (registers, or team scratch), addressed like a state View
// column: v(VAR, i) whatever i. Written through a const reference by the compartments, hence mutable.
template <class Real>
struct CellVariables {
  mutable Real v[NUM_VARS];
  KOKKOS_FORCEINLINE_FUNCTION Real& operator()(const int var, int) const { return v[var]; }
};

// The exponential policy of a gap type's junction terms inside the fused step kernel: the type's fused_step_math
// where it names one (CsrGapJunctions), else NativeMath.
template <class Gap>
using FusedStepMathOf = typename Gap::fused_step_math;
template <class Gap>
using FusedGapMath = detected_or_t<NativeMath, FusedStepMathOf, Gap>;

// alpha of the IO x gates, 0.13 u / (1 - exp(-u/10)) with u = V + 25 and e = exp(-u/10): at u = 0 it is 0/0, whose
// limit is 1.3. A float voltage can be exactly -25 mV (it is a float value), and the quotient would make the cell NaN
// from that step on; only a zero denominator takes the limit, so every other value is unchanged.
template <class Math, class Real>
KOKKOS_INLINE_FUNCTION Real potassium_x_rate(const Real u, const Real e) {
  const Real den = Real(1) - e;
  return den == Real(0) ? Real(1.3) : Math::div(Real(0.13) * u, den);
}

template <class ExecSpace, class Real, class GapJunctions>
struct IoStepFunctor {
  using Mem = typename ExecSpace::memory_space;
  StateView<Real, Mem> cur, next;
  Kokkos::View<const Real*, Mem> g_cal;      // per cell
  Kokkos::View<const Real*, Mem> i_app_cell;  // per cell, this step (extent 0 => none)
  GapJunctions gap;
  IoConstants<Real> c;
  Real i_app = 0;          // applied to every dendrite this step
  SpikeSink<Mem> spikes;
  Real spike_threshold = Real(-20);
  int step = 0;            // index n+1 written into spike events
  // Host chunked path: cells [cell_begin, cell_end) (cell_end < 0 => every column of the state). The MPI runner
  // steps the interior and the border of its cells as two ranges (docs/mpi.md).
  int cell_begin = 0, cell_end = -1;

  // The arithmetic is the specification's, rearranged only where that removes divisions or exponentials (on GPUs
  // the kernel is limited by instruction issue and latency, not memory bandwidth: docs/journal/2026-11-22-issue3-pass4.md):
  //  - division by a literal becomes multiplication by its reciprocal;
  //  - for a gate with x_inf = a/(a+b), tau = c/(a+b):  x + dt*(x_inf - x)/tau  ==  x + (dt/c)*(a - x*(a+b));
  //  - for tau = 1/(e1+e2) or tau = c*exp(z):  (x_inf - x)/tau  ==  (x_inf - x)*(e1+e2)  or  *exp(-z)/c;
  //  - double: (l_inf - l) / tau_l as one quotient, and exp(-(V+25)/10) from exp(-(V+3)/10) (soma, below);
  //  - the remaining divisions and every exp go through Math (NativeMath: device_math.hpp on CUDA).
  // The reference-trace tests (tests/test_io_reference.cpp) bound the effect: <= 5e-9 mV in double.
  // GPU (and any backend without a chunked path): one cell per index, everything fused.
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const Real vd = cur(V_DEND, i), vs = cur(V_SOMA, i), va = cur(V_AXON, i);  // read once (next may alias cur)
    const Real i_c = gap.template current<FusedGapMath<GapJunctions>>(i, vd, cur);
    const Real va_new = update_cell<NativeMath>(cur, next, i, vd, vs, va, i_c, applied_current(i));
    if (crossed(va, va_new)) record_spike(i);
  }

  // Cell i from `in` (step n) to `out` (step n+1): the three compartments below, fused; returns the new V_axon.
  template <class Math, class In, class Out>
  KOKKOS_FORCEINLINE_FUNCTION Real update_cell(const In& in, const Out& out, const int i, const Real vd, const Real vs,
                                               const Real va, const Real i_c, const Real i_ext) const {
    dendrite<Math>(in, out, i, vd, vs, i_c, i_ext);
    soma<Math>(in, out, i, vd, vs, va);
    return axon<Math>(in, out, i, vs, va);
  }

  // Whether V_axon crossed the spike threshold upwards (and spike detection is on).
  KOKKOS_FORCEINLINE_FUNCTION bool crossed(const Real va, const Real va_new) const {
    return spikes.events.extent(0) != 0 && va < spike_threshold && va_new >= spike_threshold;
  }

  // Host backends: kHostChunk cells per index. Gap currents (summed in the same junction order as on the GPU),
  // then one branch-free `omp simd` loop per compartment (small bodies vectorise without spilling), then spikes.
  void operator()(HostChunkTag, const int chunk) const {
    const int n = cell_end >= 0 ? cell_end : static_cast<int>(cur.extent(1));
    const int b = cell_begin + chunk * kHostChunk;
    const int len = n - b < kHostChunk ? n - b : kHostChunk;
    Real i_c[kHostChunk], i_ext[kHostChunk], va_new[kHostChunk];
    gap.template chunk_currents<VectorMath>(b, len, cur, i_c);
    for (int k = 0; k < len; ++k) i_ext[k] = applied_current(b + k);
#pragma omp simd
    for (int k = 0; k < len; ++k)
      dendrite<VectorMath>(cur, next, b + k, cur(V_DEND, b + k), cur(V_SOMA, b + k), i_c[k], i_ext[k]);
#pragma omp simd
    for (int k = 0; k < len; ++k) soma<VectorMath>(cur, next, b + k, cur(V_DEND, b + k), cur(V_SOMA, b + k), cur(V_AXON, b + k));
#pragma omp simd
    for (int k = 0; k < len; ++k) va_new[k] = axon<VectorMath>(cur, next, b + k, cur(V_SOMA, b + k), cur(V_AXON, b + k));
    if (spikes.events.extent(0) != 0)
      for (int k = 0; k < len; ++k)
        if (cur(V_AXON, b + k) < spike_threshold && va_new[k] >= spike_threshold) record_spike(b + k);
  }

  KOKKOS_INLINE_FUNCTION Real applied_current(const int i) const {
    return i_app_cell.extent(0) != 0 ? i_app + i_app_cell(i) : i_app;
  }

  KOKKOS_INLINE_FUNCTION void record_spike(const int i) const { record_spike_at(i, step); }
  KOKKOS_INLINE_FUNCTION void record_spike_at(const int i, const int step_index) const {
    const int slot = Kokkos::atomic_fetch_add(&spikes.count(), 1);
    if (slot < spikes.capacity()) {
      spikes.events(2 * slot) = step_index;
      spikes.events(2 * slot + 1) = i;
    }
  }

  // The three compartments (step-n voltages passed in). Each reads only step-n values, in(VAR, i), and writes its
  // own variables, out(VAR, i) = x, so they can run fused (GPU) or as separate loops (host) with identical results
  // for the same Math. The step kernels pass the state Views cur and next; the two-step mesh kernel
  // (io_mesh_pair.hpp) also passes one cell's variables held in registers or team scratch (CellVariables).
  template <class Math, class In, class Out>
  KOKKOS_FORCEINLINE_FUNCTION void dendrite(const In& in, const Out& out, const int i, const Real vd, const Real vs, const Real i_c,
                                            const Real i_ext) const {
    const Real one = 1;
    const Real q_inf = Math::div(one, one + Math::exp((vd + Real(80)) * Real(0.25)));
    const Real inv_tau_q = Math::exp(Real(-0.086) * vd - Real(14.6)) + Math::exp(Real(0.070) * vd - Real(1.87));
    const Real q = in(Q_H, i) + c.dt * ((q_inf - in(Q_H, i)) * inv_tau_q);

    const Real a_r = Math::div(Real(1.7), one + Math::exp((Real(5) - vd) * Real(1 / 13.9)));
    const Real b_r = Math::div(Real(0.02) * (vd + Real(8.5)), Math::exp((vd + Real(8.5)) * Real(0.2)) - one);
    const Real r = in(R_CAH, i) + c.dt * Real(0.2) * (a_r - in(R_CAH, i) * (a_r + b_r));  // tau_r = 5/(a+b)

    const Real ca_old = in(CA_CONC, i);
    const Real a_s_raw = Real(0.00002) * ca_old;
    const Real a_s = a_s_raw < Real(0.01) ? a_s_raw : Real(0.01);
    const Real s = in(S_KCA, i) + c.dt * (a_s - in(S_KCA, i) * (a_s + Real(0.015)));  // b_s = 0.015, tau = 1/(a+b)

    const Real ca = ca_old + c.dt * (Real(-3) * in(I_CAH, i) - Real(0.075) * ca_old);

    const Real i_sd = c.g_int_p1d * (vd - vs);
    const Real i_cah = c.g_cah * r * r * (vd - c.v_ca);
    const Real i_kca = c.g_k_ca * s * (vd - c.v_k);
    const Real i_ld = c.g_ld * (vd - c.v_l);
    const Real i_h = c.g_h * q * (vd - c.v_h);
    const Real dvd = (-(i_cah + i_sd + i_ld + i_kca + i_c + i_h) + i_ext) * c.inv_c_m;

    out(V_DEND, i) = vd + c.dt * dvd;
    out(R_CAH, i) = r;
    out(S_KCA, i) = s;
    out(Q_H, i) = q;
    out(CA_CONC, i) = ca;
    out(I_CAH, i) = i_cah;

  }

  template <class Math, class In, class Out>
  KOKKOS_FORCEINLINE_FUNCTION void soma(const In& in, const Out& out, const int i, const Real vd, const Real vs, const Real va) const {
    const Real one = 1;
    const Real k_inf = Math::div(one, one + Math::exp((vs + Real(61)) * Real(-1 / 4.2)));
    const Real l_inf = Math::div(one, one + Math::exp((vs + Real(85.5)) * Real(1 / 8.5)));
    const Real k = in(K_CAL, i) + c.dt * (k_inf - in(K_CAL, i));  // tau_k = 1
    // tau_l = 20 e_a / (1 + e_b) + 35. Double: (l_inf - l) / tau_l as (l_inf - l)(1 + e_b) / (20 e_a + 35 (1 + e_b)),
    // one division instead of two (no overflow below |V| ~ 5000 mV). Float keeps two: 1 + e_b overflows above
    // V ~ 560 mV.
    const Real e_a = Math::exp((vs + Real(160)) * Real(1 / 30.0));
    const Real one_e_b = one + Math::exp((vs + Real(84)) * Real(1 / 7.3));
    Real l;
    if constexpr (sizeof(Real) == 8) {
      l = in(L_CAL, i) + c.dt * Math::div((l_inf - in(L_CAL, i)) * one_e_b, Real(20) * e_a + Real(35) * one_e_b);
    } else {
      l = in(L_CAL, i) + c.dt * Math::div(l_inf - in(L_CAL, i), Math::div(Real(20) * e_a, one_e_b) + Real(35));
    }

    const Real m = Math::div(one, one + Math::exp((Real(-30) - vs) * Real(1 / 5.5)));
    const Real h_inf = Math::div(one, one + Math::exp((vs + Real(70)) * Real(1 / 5.8)));  // (-70-V)/-5.8
    const Real inv_tau_h = Math::exp((vs + Real(40)) * Real(1 / 33.0)) * Real(1 / 3.0);  // tau_h = 3 exp((-40-V)/33)
    const Real h = in(H_NA, i) + c.dt * ((h_inf - in(H_NA, i)) * inv_tau_h);

    const Real e_n = Math::exp((Real(-3) - vs) * Real(0.1));  // exp(-(V + 3) / 10)
    const Real n_inf = Math::div(one, one + e_n);
    const Real p_inf = Math::div(one, one + Math::exp((vs + Real(51)) * Real(1 / 12.0)));  // (-51-V)/-12
    const Real inv_tau_n = Math::div(one, Real(5) + Real(47) * Math::exp((vs + Real(50)) * Real(1 / 900.0)));
    const Real n = in(N_KDR, i) + c.dt * ((n_inf - in(N_KDR, i)) * inv_tau_n);
    const Real p = in(P_KDR, i) + c.dt * ((p_inf - in(P_KDR, i)) * inv_tau_n);

    // Double: exp(-(V + 25) / 10) = e_n * exp(-2.2), one exponential fewer. Float computes it (measured faster there).
    const Real e_xs = sizeof(Real) == 8 ? e_n * Real(0.11080315836233387) : Math::exp((vs + Real(25)) * Real(-0.1));
    const Real a_xs = potassium_x_rate<Math, Real>(vs + Real(25), e_xs);
    const Real b_xs = Real(1.69) * Math::exp(Real(-0.0125) * (vs + Real(35)));
    const Real x_s = in(X_KS, i) + c.dt_fast_k * (a_xs - in(X_KS, i) * (a_xs + b_xs));  // tau = 1/(a+b)

    const Real i_ds = c.g_int_p1 * (vs - vd);
    const Real k3 = k * k * k;
    const Real i_cal = g_cal(i) * k3 * l * (vs - c.v_ca);
    const Real m3 = m * m * m;
    const Real i_na_s = c.g_na_s * m3 * h * (vs - c.v_na);
    const Real i_ls = c.g_ls * (vs - c.v_l);
    const Real n2 = n * n;
    const Real i_kdr = c.g_kdr_s * (n2 * n2) * (vs - c.v_k);
    const Real xs2 = x_s * x_s;
    const Real i_ks = c.g_k_s * (xs2 * xs2) * (vs - c.v_k);
    const Real i_as = c.g_int_p2d * (vs - va);
    const Real dvs = (-(i_cal + i_ds + i_as + i_na_s + i_ls + i_kdr + i_ks)) * c.inv_c_m;

    out(V_SOMA, i) = vs + c.dt * dvs;
    out(K_CAL, i) = k;
    out(L_CAL, i) = l;
    out(H_NA, i) = h;
    out(N_KDR, i) = n;
    out(P_KDR, i) = p;
    out(X_KS, i) = x_s;

  }

  template <class Math, class In, class Out>
  KOKKOS_FORCEINLINE_FUNCTION Real axon(const In& in, const Out& out, const int i, const Real vs, const Real va) const {
    const Real one = 1;
    const Real m_a = Math::div(one, one + Math::exp((Real(-30) - va) * Real(1 / 5.5)));
    const Real h_inf_a = Math::div(one, one + Math::exp((va + Real(60)) * Real(1 / 5.8)));  // (-60-V)/-5.8
    const Real inv_tau_h_a = Math::exp((va + Real(40)) * Real(1 / 33.0)) * Real(1 / 1.5);  // tau = 1.5 exp((-40-V)/33)
    const Real h_a = in(H_NA_A, i) + c.dt * ((h_inf_a - in(H_NA_A, i)) * inv_tau_h_a);

    const Real a_xa = potassium_x_rate<Math, Real>(va + Real(25), Math::exp((va + Real(25)) * Real(-0.1)));
    const Real b_xa = Real(1.69) * Math::exp(Real(-0.0125) * (va + Real(35)));
    const Real x_a = in(X_KA, i) + c.dt_fast_k * (a_xa - in(X_KA, i) * (a_xa + b_xa));

    const Real m_a3 = m_a * m_a * m_a;
    const Real i_na_a = c.g_na_a * m_a3 * h_a * (va - c.v_na);
    const Real i_la = c.g_la * (va - c.v_l);
    const Real i_sa = c.g_int_p2 * (va - vs);
    const Real xa2 = x_a * x_a;
    const Real i_k_a = c.g_k_a * (xa2 * xa2) * (va - c.v_k);
    const Real dva = (-(i_k_a + i_sa + i_la + i_na_a)) * c.inv_c_m;
    const Real va_new = va + c.dt * dva;

    out(V_AXON, i) = va_new;
    out(H_NA_A, i) = h_a;
    out(X_KA, i) = x_a;
    return va_new;
  }
};

// The functor of one update: state buffers (read cur, write next), per-cell g_CaL and applied current (extent 0:
// none), the gap-junction policy, the constants, the shared applied current, the spike sink and the updates done.
template <class ExecSpace, class Real, class GapJunctions, class Mem = typename ExecSpace::memory_space>
IoStepFunctor<ExecSpace, Real, GapJunctions> make_step_functor(
    const IoStateBuffers<Real, Mem>& state, Kokkos::View<const Real*, Mem> g_cal, Kokkos::View<const Real*, Mem> i_app_cell,
    const GapJunctions& gap, const IoConstants<Real>& c, double i_app, const SpikeSink<Mem>& spikes,
    Real spike_threshold, std::int64_t steps_done) {
  IoStepFunctor<ExecSpace, Real, GapJunctions> f;
  f.cur = state.cur;
  f.next = state.next;
  f.g_cal = g_cal;
  f.i_app_cell = i_app_cell;
  f.gap = gap;
  f.c = c;
  f.i_app = Real(i_app);
  f.spikes = spikes;
  f.spike_threshold = spike_threshold;
  f.step = static_cast<int>(steps_done + 1);
  return f;
}

}  // namespace kbrain::olive
