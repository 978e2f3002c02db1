#pragma once
// Hodgkin-Huxley point neuron, Traub-Miles Na/K (+ optional M current), conductance synapses (exponential as in the
// COBAHH benchmark, or alpha), as in the COBAHH benchmark. ExponentialEuler is Brian2's 'exponential_euler': every variable x with dx/dt = A + B x advances
// exactly with A, B evaluated from the state at the step start. Euler is also offered. A spike is v > v_threshold
// while not refractory; refractoriness only blocks detection. Rates use a stable exprel (Brian2's definition).
#include <cmath>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/common/simd_exp.hpp"
#include "models/point/point_parameters.hpp"
#include "models/point/point_state.hpp"
#include "models/point/step_inputs.hpp"

namespace kbrain::point {

// x / (exp(x) - 1) written as 1 / exprel(x); exprel(x) = expm1(x) / x, 1 at |x| < 1e-16 (as Brian2).
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION Real exprel(Real x) {
  if (kx::fabs(x) < Real(1e-16)) return Real(1);
  return kx::expm1(x) / x;
}

// How the step evaluates exp and exprel. HhLibmMath: the backend's own exp and expm1 (GPUs, and any per-neuron
// launch). HhVectorMath: the project's branch-free exp (models/common/simd_exp.hpp), with which the host backends'
// chunk loop vectorises; exprel as a Taylor polynomial below |x| = 1/16 (truncation under an ulp) and
// (exp(x) - 1) / x above. Within a few ulp of libm, not the same bits: host and GPU runs of an HH network agree
// statistically, not spike for spike (as GPU and CPU already did: the GPU's exp is not libm's).
struct HhLibmMath {
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real exp(Real x) { return kx::exp(x); }
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real exprel(Real x) { return point::exprel(x); }
};
struct HhVectorMath {
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real exp(Real x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return kx::exp(x);  // never called on a device; keeps device compilation of host-only paths valid
#else
    return simd_exp(x);
#endif
  }
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real exprel(Real x) {
    const Real series =
        Real(1) + x * (Real(1.0 / 2) + x * (Real(1.0 / 6) + x * (Real(1.0 / 24) + x * (Real(1.0 / 120) +
        x * (Real(1.0 / 720) + x * (Real(1.0 / 5040) + x * Real(1.0 / 40320)))))));
    const bool small = x < Real(0.0625) && x > Real(-0.0625);
    const Real safe = small ? Real(1) : x;  // the quotient's branch never divides by 0
    const Real quotient = (exp(safe) - Real(1)) / safe;
    return small ? series : quotient;
  }
};

template <class Real>
struct HhConstants {
  Real dt, c_m, g_l, e_l, v_th, e_e, e_i, g_na, g_kd, g_m, e_na, e_k, v_t, tau_e, tau_i, decay_e, decay_i;
  int refractory_steps, integrator, synapse;
  static HhConstants make(const PointParameters& p) {
    HhConstants c;
    c.dt = Real(p.dt); c.c_m = Real(p.c_m); c.g_l = Real(p.g_l); c.e_l = Real(p.e_l); c.v_th = Real(p.v_threshold);
    c.e_e = Real(p.e_e); c.e_i = Real(p.e_i); c.g_na = Real(p.g_na); c.g_kd = Real(p.g_kd); c.g_m = Real(p.g_m);
    c.e_na = Real(p.e_na); c.e_k = Real(p.e_k); c.v_t = Real(p.v_t);
    c.tau_e = Real(p.tau_e); c.tau_i = Real(p.tau_i);
    c.decay_e = Real(std::exp(-p.dt / p.tau_e));
    c.decay_i = Real(std::exp(-p.dt / p.tau_i));
    c.refractory_steps = static_cast<int>(p.refractory_steps());
    c.integrator = static_cast<int>(p.integrator);
    c.synapse = static_cast<int>(p.synapse);
    return c;
  }
};

// Which of the model's options a step handles: read from the constants at run time (any network), or fixed at
// compile time to the COBAHH benchmark's (exponential Euler, exponential synapses, no M current). With the options
// fixed the step is one run of arithmetic without branches between its exponentials, which the compiler can
// interleave; a small network's GPU step waits on that chain (docs/performance.md, "Small spiking networks").
// Both compute the same expressions, so the same bits.
struct HhAnyOptions {
  template <class C>
  KOKKOS_INLINE_FUNCTION static bool exponential(const C& c) { return c.integrator != int(Integrator::Euler); }
  template <class C>
  KOKKOS_INLINE_FUNCTION static bool alpha(const C& c) { return c.synapse == int(SynapseKind::ConductanceAlpha); }
  template <class C>
  KOKKOS_INLINE_FUNCTION static bool m_current(const C& c) { return c.g_m > 0; }
};
struct HhCobaOptions {
  template <class C>
  KOKKOS_INLINE_FUNCTION static constexpr bool exponential(const C&) { return true; }
  template <class C>
  KOKKOS_INLINE_FUNCTION static constexpr bool alpha(const C&) { return false; }
  template <class C>
  KOKKOS_INLINE_FUNCTION static constexpr bool m_current(const C&) { return false; }
};
// Whether constants c have the options HhCobaOptions fixes.
template <class Real>
bool has_coba_options(const HhConstants<Real>& c) {
  return HhAnyOptions::exponential(c) && !HhAnyOptions::alpha(c) && !HhAnyOptions::m_current(c);
}

// Gate x with dx/dt = alpha (1 - x) - beta x, i.e. A = alpha, B = -(alpha + beta).
template <class Real, class Math = HhLibmMath>
KOKKOS_FORCEINLINE_FUNCTION Real gate_step(Real x, Real alpha, Real beta, Real dt, bool exponential) {
  const Real euler = x + dt * (alpha * (Real(1) - x) - beta * x);
  const Real B = -(alpha + beta);
  const Real ba = alpha / B;
  return exponential ? -ba + (ba + x) * Math::exp(B * dt) : euler;
}

// The gates' next values, each a function of v and the gate at the step's start alone (its own rates and
// exponential), so they can be computed in any order or on different threads with the same bits.
template <class Real, class Math = HhLibmMath>
KOKKOS_FORCEINLINE_FUNCTION Real hh_m_next(Real v, Real m, const HhConstants<Real>& c, bool exponential) {
  const Real u = v - c.v_t;
  const Real alpha_m = Real(0.32 * 4) / Math::exprel((Real(13) - u) / Real(4));
  const Real beta_m = Real(0.28 * 5) / Math::exprel((u - Real(40)) / Real(5));
  return gate_step<Real, Math>(m, alpha_m, beta_m, c.dt, exponential);
}
template <class Real, class Math = HhLibmMath>
KOKKOS_FORCEINLINE_FUNCTION Real hh_h_next(Real v, Real h, const HhConstants<Real>& c, bool exponential) {
  const Real u = v - c.v_t;
  const Real alpha_h = Real(0.128) * Math::exp((Real(17) - u) / Real(18));
  const Real beta_h = Real(4) / (Real(1) + Math::exp((Real(40) - u) / Real(5)));
  return gate_step<Real, Math>(h, alpha_h, beta_h, c.dt, exponential);
}
template <class Real, class Math = HhLibmMath>
KOKKOS_FORCEINLINE_FUNCTION Real hh_n_next(Real v, Real n, const HhConstants<Real>& c, bool exponential) {
  const Real u = v - c.v_t;
  const Real alpha_n = Real(0.032 * 5) / Math::exprel((Real(15) - u) / Real(5));
  const Real beta_n = Real(0.5) * Math::exp((Real(10) - u) / Real(40));
  return gate_step<Real, Math>(n, alpha_n, beta_n, c.dt, exponential);
}

// One HH step of neuron i in four parts that depend only on the state at the step's start: the gates m, h, n
// (hh_*_next) and the membrane (v, the synaptic conductances, the M current, the spike). One thread runs them, the
// gates first, held in registers until the membrane's stores, so that their arithmetic and the membrane's form one
// run (running them on different warps of a team was measured and lost: bench/README.md, "COBAHH neuron update in
// parts"). The gates read only the neuron's own state, which no other kernel of a step writes, so they are the
// launch's prologue (backends/launch_prologue.hpp): a chained launch computes them while the previous step's
// delivery runs, and the membrane, which takes that delivery's arrivals and the step, after its wait.
// Host backends run chunks of kHostChunk neurons per index instead (step_inputs.hpp), each one vector loop with
// HhVectorMath. Options: HhAnyOptions, or HhCobaOptions where has_coba_options(c).
struct HhChunkTag {};
template <class Exec, class Real, class Options = HhAnyOptions>
struct HhStepFunctor {
  using Mem = typename Exec::memory_space;
  PointState<Real, Mem> s;
  StepInputs<Real, Mem> in;
  HhConstants<Real> c;

  // The state at the step's start and the gates' next values.
  struct Gates {
    Real v = 0, m = 0, h = 0, n = 0, m_next = 0, h_next = 0, n_next = 0;
  };

  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { after_wait(i, prologue(i)); }

  KOKKOS_INLINE_FUNCTION Gates prologue(const int i) const {
    Gates g;
    g.v = s.v(i), g.m = s.m(i), g.h = s.h(i), g.n = s.n(i);
    const bool exponential = Options::exponential(c);
    g.m_next = hh_m_next(g.v, g.m, c, exponential);
    g.h_next = hh_h_next(g.v, g.h, c, exponential);
    g.n_next = hh_n_next(g.v, g.n, c, exponential);
    return g;
  }

  KOKKOS_INLINE_FUNCTION void after_wait(const int i, const Gates& g) const {
    membrane(i, g.v, g.m, g.h, g.n);
    s.m(i) = g.m_next;
    s.h(i) = g.h_next;
    s.n(i) = g.n_next;
  }

  // Everything but the gates, from v, m, h, n at the step's start; reads and writes nothing the gates' parts touch.
  KOKKOS_INLINE_FUNCTION void membrane(const int i, const Real v, const Real m, const Real h, const Real n) const {
    const Real e = in.take(0, i), inh = in.take(1, i);
    in.emit(i, membrane_update<HhLibmMath>(i, in.step(), v, m, h, n, e, inh, in.current(i)));
  }

  // The membrane of neuron i at step `step` with this step's arrivals and input current I; returns whether it
  // spiked. Every branch is a select (the host's vector loop).
  template <class Math>
  KOKKOS_FORCEINLINE_FUNCTION bool membrane_update(const int i, const int step, const Real v, const Real m, const Real h,
                                              const Real n, const Real arrive_e, const Real arrive_i,
                                              const Real I) const {
    const bool alpha = Options::alpha(c), m_current = Options::m_current(c);
    // exponential synapses: arrivals jump g; alpha synapses: arrivals jump x by e*w and g follows x (peak w at tau)
    Real ge = s.ge(i), gi = s.gi(i), xe = 0, xi = 0;
    if (alpha) {
      xe = s.xe(i) + Real(2.718281828459045) * arrive_e;
      xi = s.xi(i) + Real(2.718281828459045) * arrive_i;
    } else {
      ge += arrive_e;
      gi += arrive_i;
    }
    const Real p = m_current ? s.p(i) : Real(0);
    const bool exponential = Options::exponential(c);
    const Real dt = c.dt;

    const Real g_na = c.g_na * m * m * m * h, g_kd = c.g_kd * (n * n) * (n * n), g_m = c.g_m * p;
    const Real B = -(c.g_l + ge + gi + g_na + g_kd + g_m) / c.c_m;
    const Real A = (c.g_l * c.e_l + ge * c.e_e + gi * c.e_i + g_na * c.e_na + (g_kd + g_m) * c.e_k + I) / c.c_m;
    const Real ba = A / B;
    const Real v_new = exponential ? -ba + (ba + v) * Math::exp(B * dt) : v + dt * (A + B * v);
    if (m_current) {  // Yamada M current (Destexhe/Pospischil), v absolute
      const Real p_inf = Real(1) / (Real(1) + Math::exp(-(v + Real(35)) / Real(10)));
      const Real tau_p = Real(1000) / (Real(3.3) * Math::exp((v + Real(35)) / Real(20)) + Math::exp(-(v + Real(35)) / Real(20)));
      s.p(i) = exponential ? p_inf + (p - p_inf) * Math::exp(-dt / tau_p) : p + dt * (p_inf - p) / tau_p;
    }
    if (alpha) {  // dg/dt = (x - g) / tau, dx/dt = -x / tau (x frozen over the step for g, as the LIF model does)
      s.ge(i) = exponential ? xe + (ge - xe) * c.decay_e : ge + dt * (xe - ge) / c.tau_e;
      s.gi(i) = exponential ? xi + (gi - xi) * c.decay_i : gi + dt * (xi - gi) / c.tau_i;
      s.xe(i) = exponential ? xe * c.decay_e : xe - dt * xe / c.tau_e;
      s.xi(i) = exponential ? xi * c.decay_i : xi - dt * xi / c.tau_i;
    } else {
      s.ge(i) = exponential ? ge * c.decay_e : ge - dt * ge / c.tau_e;
      s.gi(i) = exponential ? gi * c.decay_i : gi - dt * gi / c.tau_i;
    }
    const int last = s.last_spike(i);
    const bool nr = step - last >= c.refractory_steps;
    const bool spike = nr && v_new > c.v_th;
    s.last_spike(i) = spike ? step : last;
    s.v(i) = v_new;
    return spike;
  }

  // Host backends: the neurons of one chunk (host_chunk_range): the inputs first, then one vector loop over the
  // chunk with HhVectorMath, which writes the spike flags.
  void operator()(HhChunkTag, const int chunk) const {
    const HostChunkRange range = host_chunk_range(chunk, static_cast<int>(s.v.extent(0)));
    const int b = range.begin, len = range.len;
    const int step = in.step();
    Real current[kHostChunk];
    in.chunk_currents(b, len, current);
    long long* const ring_e = in.slot_row(step, 0) + b;
    long long* const ring_i = in.slot_row(step, 1) + b;
    const double scale_e = in.inv_scale[0], scale_i = in.inv_scale[1];
    const bool exponential = Options::exponential(c), append = in.spikes.append;
    int* const flags = append ? nullptr : &in.spikes.flags(b);
    int spiked[kHostChunk];
#pragma omp simd
    for (int k = 0; k < len; ++k) {
      const int i = b + k;
      const Real v = s.v(i), m = s.m(i), h = s.h(i), n = s.n(i);
      const Real m_next = hh_m_next<Real, HhVectorMath>(v, m, c, exponential);
      const Real h_next = hh_h_next<Real, HhVectorMath>(v, h, c, exponential);
      const Real n_next = hh_n_next<Real, HhVectorMath>(v, n, c, exponential);
      const Real e = in.arrival(ring_e + k, scale_e), inh = in.arrival(ring_i + k, scale_i);
      spiked[k] = membrane_update<HhVectorMath>(i, step, v, m, h, n, e, inh, current[k]) ? 1 : 0;
      s.m(i) = m_next;
      s.h(i) = h_next;
      s.n(i) = n_next;
    }
    if (append) {  // spikes appended by atomics (a benchmark's choice on CPUs)
      for (int k = 0; k < len; ++k) in.emit(b + k, spiked[k] != 0);
      return;
    }
#pragma omp simd
    for (int k = 0; k < len; ++k) flags[k] = spiked[k];
  }
};

}  // namespace kbrain::point
