#pragma once
// Kernels of the Wang 2012 cortical HH network (docs/models/cortex-hh.md). One launch advances every neuron by one
// network step of S = network_dt / dt neuron sub-steps of dt (S = 1: the study's basic method; S = 50: EAI), with the
// state held in registers between the one load and the one store:
//   1. the synaptic arrivals due at this network step (fixed-point ring slot, cleared as read) jump the alpha
//      conductance's rise variable: x += e * w (peak conductance w, t/tau * e^(1 - t/tau));
//   2. S sub-steps: gates and v from the state at the sub-step start (forward Euler for v; gates by forward Euler
//      or exponential Euler), the alpha conductances (g, x) by their exact linear propagator over dt;
//      gating functions either computed or read from a table (LUT, linear interpolation);
//   3. TPM (inactive neurons only): blocks of k + 1 sub-steps followed by a projective jump of M sub-steps,
//      y <- y_last + M (y_last - y_prev) for v and the gates (clamped to [0, 1]); conductances advance exactly;
//   4. spike = v crossing v_threshold upwards; the first crossing's sub-step (1-based) goes to spiked(i).
// The thalamic current (constant part) acts in [input_start, input_stop) on the global sub-step clock.
#include <cmath>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/cortex_hh/cortex_gating.hpp"
#include "models/point/point_parameters.hpp"
#include "models/point/point_state.hpp"
#include "spiking/counter_draws.hpp"
#include "spiking/device_synapses.hpp"
#include "spiking/spike_exchange.hpp"
#include "spiking/step_clock.hpp"

namespace kbrain::cortex {

template <class Real>
struct CortexConstants {
  Real dt, c_m, e_l, e_na, e_k, e_e, e_i, v_t, v_th;
  Real g_l[2], g_na, g_k[2], g_m[2];  // [0] pyramidal, [1] interneuron
  // alpha synapses over dt: g <- (g + x h/tau) a, x <- x a; over M dt for the TPM jump
  Real a_e, c_e, a_i, c_i, a_e_m, c_e_m, a_i_m, c_i_m;
  Real arrival_scale[2];  // fixed point -> e * weight
  Real lut_v_min, lut_inv_dv;
  int lut_rows = 0;
  int n_exc = 0, substeps = 1, gating = 0, tpm_k = 3, tpm_m = 6;
  bool exponential = false, tpm = false;
  Real tpm_v;
  long long input_start = 0, input_stop = 0;  // global sub-step window of the constant input

  static CortexConstants make(const point::PointParameters& p, int n_exc, const double* inv_scale) {
    CortexConstants c;
    c.dt = Real(p.dt); c.c_m = Real(p.c_m); c.e_l = Real(p.e_l); c.e_na = Real(p.e_na); c.e_k = Real(p.e_k);
    c.e_e = Real(p.e_e); c.e_i = Real(p.e_i); c.v_t = Real(p.v_t); c.v_th = Real(p.v_threshold);
    c.g_l[0] = Real(p.g_l); c.g_l[1] = Real(p.g_l_inh);
    c.g_na = Real(p.g_na);
    c.g_k[0] = Real(p.g_kd); c.g_k[1] = Real(p.g_kd_inh);
    c.g_m[0] = Real(p.g_m); c.g_m[1] = Real(p.g_m_inh);
    const int M = p.tpm_m;
    c.a_e = Real(std::exp(-p.dt / p.tau_e)); c.c_e = Real(p.dt / p.tau_e);
    c.a_i = Real(std::exp(-p.dt / p.tau_i)); c.c_i = Real(p.dt / p.tau_i);
    c.a_e_m = Real(std::exp(-M * p.dt / p.tau_e)); c.c_e_m = Real(M * p.dt / p.tau_e);
    c.a_i_m = Real(std::exp(-M * p.dt / p.tau_i)); c.c_i_m = Real(M * p.dt / p.tau_i);
    c.arrival_scale[0] = Real(std::exp(1.0) * inv_scale[0]);
    c.arrival_scale[1] = Real(std::exp(1.0) * inv_scale[1]);
    c.lut_v_min = Real(p.lut_v_min);
    c.lut_inv_dv = Real(1.0 / p.lut_dv);
    c.lut_rows = p.lut ? p.lut_rows() : 0;
    c.n_exc = n_exc;
    c.substeps = static_cast<int>(p.substeps());
    c.gating = p.gating;
    c.tpm_k = p.tpm_k;
    c.tpm_m = M;
    c.exponential = p.integrator == point::Integrator::ExponentialEuler;
    c.tpm = p.tpm;
    c.tpm_v = Real(p.tpm_v);
    c.input_start = std::llround(p.input_start / p.dt);
    c.input_stop = p.input_stop >= 1e29 ? (1LL << 62) : std::llround(p.input_stop / p.dt);
    return c;
  }
};

// Host: the table of (x_inf, f) per gate at v_min + j dv (f: the gate_factor over dt of the configured integrator).
// Row j holds 8 values: m_inf, f_m, h_inf, f_h, n_inf, f_n, p_inf, f_p.
inline std::vector<double> build_gate_table(const point::PointParameters& p) {
  const int rows = p.lut_rows();
  std::vector<double> t(static_cast<std::size_t>(rows) * kGateFunctions);
  const bool exponential = p.integrator == point::Integrator::ExponentialEuler;
  for (int j = 0; j < rows; ++j) {
    double g[kGateFunctions];
    gating_functions<double>(p.gating, p.v_t, p.lut_v_min + j * p.lut_dv, g);
    for (int k = 0; k < 4; ++k) {
      t[j * 8 + 2 * k] = g[2 * k];
      t[j * 8 + 2 * k + 1] = gate_factor<double>(g[2 * k + 1], p.dt, exponential);
    }
  }
  return t;
}

// Register copy of one neuron.
template <class Real>
struct CortexCell {
  Real v, m, h, n, p, ge, xe, gi, xi;
};

template <class Exec, class Real, bool kLut>
struct CortexStepFunctor {
  using Mem = typename Exec::memory_space;
  point::PointState<Real, Mem> s;
  Kokkos::View<long long**, Kokkos::LayoutRight, Mem> ring;  // (slot * 2 + receptor, neuron)
  int slots = 1;
  spiking::StepClock<Mem> clock;  // the network step; the first kernel of the step publishes it
  Kokkos::View<const Real*, Mem, Kokkos::MemoryTraits<Kokkos::RandomAccess>> lut;  // rows * 8
  Kokkos::View<const int*, Mem> order;  // TPM: active neurons first, then inactive (empty: identity)
  Kokkos::View<int*, Mem> spiked;       // 0 or the 1-based sub-step of the first spike in this network step
  spiking::SpikeSink<Mem> sink;         // append (GPUs): each spike takes its list and log slots here
  CortexConstants<Real> c;
  std::uint64_t noise_seed = 0;

  // x_inf and update factor f for the 4 gates at v.
  KOKKOS_INLINE_FUNCTION void gates(Real v, Real* g) const {
    if constexpr (kLut) {
      Real pos = (v - c.lut_v_min) * c.lut_inv_dv;
      const Real top = Real(c.lut_rows - 1);
      pos = pos < Real(0) ? Real(0) : (pos > top ? top : pos);
      int j = static_cast<int>(pos);
      if (j > c.lut_rows - 2) j = c.lut_rows - 2;
      const Real f = pos - Real(j);
      const int base = j * kGateFunctions;
      for (int k = 0; k < kGateFunctions; ++k) {
        const Real lo = lut(base + k), hi = lut(base + kGateFunctions + k);
        g[k] = lo + f * (hi - lo);
      }
    } else {
      gating_functions<Real>(c.gating, c.v_t, v, g);
      for (int k = 0; k < 4; ++k) g[2 * k + 1] = gate_factor<Real>(g[2 * k + 1], c.dt, c.exponential);
    }
  }

  // Thalamic current at global sub-step t: the constant part inside the input window + sd * N(0,1) for (seed, i, t).
  KOKKOS_INLINE_FUNCTION Real current(int i, long long t, Real i_ext, Real sd) const {
    Real I = (t >= c.input_start && t < c.input_stop) ? i_ext : Real(0);
    if (sd != Real(0)) {
      const std::uint64_t key = spiking::stream_key(noise_seed, spiking::Purpose::Noise);
      const double u1 = 1.0 - counter_uniform(key, static_cast<std::uint64_t>(i), 2 * static_cast<std::uint64_t>(t));
      const double u2 = counter_uniform(key, static_cast<std::uint64_t>(i), 2 * static_cast<std::uint64_t>(t) + 1);
      I += sd * static_cast<Real>(kx::sqrt(-2.0 * kx::log(u1)) * kx::cos(6.283185307179586 * u2));
    }
    return I;
  }

  // One sub-step of v and the gates (not the synapses).
  KOKKOS_INLINE_FUNCTION void substep(CortexCell<Real>& x, int type, Real I) const {
    Real g[kGateFunctions];
    gates(x.v, g);
    const Real v = x.v;
    const Real gna = c.g_na * x.m * x.m * x.m * x.h;
    const Real n2 = x.n * x.n;
    const Real gk = c.g_k[type] * n2 * n2 + c.g_m[type] * x.p;
    const Real i_ion = c.g_l[type] * (v - c.e_l) + gna * (v - c.e_na) + gk * (v - c.e_k) + x.ge * (v - c.e_e) +
                       x.gi * (v - c.e_i);
    x.v = v + c.dt * (I - i_ion) / c.c_m;
    x.m = g[0] + (x.m - g[0]) * g[1];
    x.h = g[2] + (x.h - g[2]) * g[3];
    x.n = g[4] + (x.n - g[4]) * g[5];
    x.p = g[6] + (x.p - g[6]) * g[7];
  }

  KOKKOS_INLINE_FUNCTION void synapses(CortexCell<Real>& x) const {
    x.ge = (x.ge + x.xe * c.c_e) * c.a_e;
    x.xe *= c.a_e;
    x.gi = (x.gi + x.xi * c.c_i) * c.a_i;
    x.xi *= c.a_i;
  }

  KOKKOS_INLINE_FUNCTION static Real clamp01(Real y) { return y < Real(0) ? Real(0) : (y > Real(1) ? Real(1) : y); }

  KOKKOS_INLINE_FUNCTION void operator()(const int k) const {
    const int step = clock.first_kernel_step();
    if (k == 0) clock.publish();
    const int slot_row = (step % slots) * 2;
    const long long first_substep = static_cast<long long>(step) * c.substeps;  // global index of its first sub-step
    const int i = order.extent(0) ? order(k) : k;
    const int type = i < c.n_exc ? 0 : 1;
    CortexCell<Real> x{s.v(i), s.m(i), s.h(i), s.n(i), s.p(i), s.ge(i), s.xe(i), s.gi(i), s.xi(i)};
    const Real i_ext = s.i_ext(i), sd = s.noise_sd(i);
    for (int r = 0; r < 2; ++r) {
      const long long q = ring(slot_row + r, i);
      if (q != 0) {
        ring(slot_row + r, i) = 0;
        const Real w = static_cast<Real>(static_cast<double>(q)) * c.arrival_scale[r];
        if (r == 0) x.xe += w;
        else x.xi += w;
      }
    }
    int first_spike = 0;
    const int S = c.substeps;
    const bool projective = c.tpm && x.v < c.tpm_v;
    int sub = 0;
    if (projective) {
      const int block = c.tpm_k + 1 + c.tpm_m;
      while (sub + block <= S) {
        CortexCell<Real> prev = x;
        for (int j = 0; j <= c.tpm_k; ++j) {
          prev = x;
          substep(x, type, current(i, first_substep + sub, i_ext, sd));
          synapses(x);
          ++sub;
          if (!first_spike && prev.v < c.v_th && x.v >= c.v_th) first_spike = sub;
        }
        const Real M = Real(c.tpm_m);
        const Real v_old = x.v;
        x.v = x.v + M * (x.v - prev.v);
        x.m = clamp01(x.m + M * (x.m - prev.m));
        x.h = clamp01(x.h + M * (x.h - prev.h));
        x.n = clamp01(x.n + M * (x.n - prev.n));
        x.p = clamp01(x.p + M * (x.p - prev.p));
        x.ge = (x.ge + x.xe * c.c_e_m) * c.a_e_m;
        x.xe *= c.a_e_m;
        x.gi = (x.gi + x.xi * c.c_i_m) * c.a_i_m;
        x.xi *= c.a_i_m;
        sub += c.tpm_m;
        if (!first_spike && v_old < c.v_th && x.v >= c.v_th) first_spike = sub;
      }
    }
    for (; sub < S; ++sub) {
      const Real v_old = x.v;
      substep(x, type, current(i, first_substep + sub, i_ext, sd));
      synapses(x);
      if (!first_spike && v_old < c.v_th && x.v >= c.v_th) first_spike = sub + 1;
    }
    s.v(i) = x.v; s.m(i) = x.m; s.h(i) = x.h; s.n(i) = x.n; s.p(i) = x.p;
    s.ge(i) = x.ge; s.xe(i) = x.xe; s.gi(i) = x.gi; s.xi(i) = x.xi;
    spiked(i) = first_spike;
    if (sink.append && first_spike) sink.append_spike(i, step, static_cast<int>(first_substep) + first_spike);
  }
};

// TPM grouping: active neurons (v >= tpm_v) in ascending order at the front of `order`, inactive ones from the back,
// so that each GPU warp of the step kernel (which walks `order`) takes one branch, except at the boundary.
// A scan, not atomics: the grouping is the same on every backend.
template <class Mem, class Real>
struct TpmPartitionFunctor {
  Kokkos::View<const Real*, Mem> v;
  Kokkos::View<int*, Mem> order;
  Real tpm_v;
  int n = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, int& active, const bool final) const {
    const bool a = !(v(i) < tpm_v);
    if (final) order(a ? active : n - 1 - (i - active)) = i;
    if (a) ++active;
  }
};

}  // namespace kbrain::cortex
