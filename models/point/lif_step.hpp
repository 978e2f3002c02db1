#pragma once
// Leaky integrate-and-fire step, Brian2's order within a step: integrate, threshold (v > v_threshold and not
// refractory), reset. During the refractory period v is clamped (Brian2 "unless refractory"); synaptic variables
// keep decaying. Integrators: Euler, ExponentialEuler, Exact, Rk4 (see point_parameters.hpp); Exact with
// conductance synapses is ExponentialEuler (the same for zero conductance).
// One body per neuron (advance) serves both launches: one neuron per index (GPUs), and chunks of kHostChunk
// neurons per index on host backends, whose arithmetic is one branch-free `omp simd` loop. The integrator and the
// synapse kind are template options where the experiment fixes them (LifCobaOptions, LifCubaOptions: the run-time
// switch then folds away and the loop vectorises), else read from the constants (LifAnyOptions); every option set
// computes the same expressions in the same order, so the same bits.
#include <cmath>

#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"
#include "models/point/point_parameters.hpp"
#include "models/point/point_state.hpp"
#include "models/point/step_inputs.hpp"

namespace kbrain::point {

template <class Real>
struct LifConstants {
  Real dt, c_m, g_l, e_l, v_th, v_reset, tau_e, tau_i, e_e, e_i;
  Real decay_e, decay_i, decay_m;  // exp(-dt/tau)
  int refractory_steps;
  int integrator, synapse;
  bool inclusive;  // spike at v >= v_th
  static LifConstants make(const PointParameters& p) {
    LifConstants c;
    c.dt = Real(p.dt); c.c_m = Real(p.c_m); c.g_l = Real(p.g_l); c.e_l = Real(p.e_l);
    c.v_th = Real(p.v_threshold); c.v_reset = Real(p.v_reset);
    c.tau_e = Real(p.tau_e); c.tau_i = Real(p.tau_i); c.e_e = Real(p.e_e); c.e_i = Real(p.e_i);
    c.decay_e = Real(std::exp(-p.dt / p.tau_e));
    c.decay_i = Real(std::exp(-p.dt / p.tau_i));
    c.decay_m = Real(std::exp(-p.dt * p.g_l / p.c_m));
    c.refractory_steps = static_cast<int>(p.refractory_steps());
    c.inclusive = p.threshold_inclusive;
    c.integrator = static_cast<int>(p.integrator);
    c.synapse = static_cast<int>(p.synapse);
    return c;
  }
};

// The integrator and synapse kind read from the constants (any experiment).
struct LifAnyOptions {
  template <class C>
  KOKKOS_INLINE_FUNCTION static int integrator(const C& c) { return c.integrator; }
  template <class C>
  KOKKOS_INLINE_FUNCTION static int synapse(const C& c) { return c.synapse; }
};
// Both fixed at compile time.
template <Integrator I, SynapseKind S>
struct LifFixedOptions {
  template <class C>
  KOKKOS_INLINE_FUNCTION static constexpr int integrator(const C&) { return int(I); }
  template <class C>
  KOKKOS_INLINE_FUNCTION static constexpr int synapse(const C&) { return int(S); }
};
using LifCobaOptions = LifFixedOptions<Integrator::Euler, SynapseKind::ConductanceExp>;  // Brette COBA
using LifCubaOptions = LifFixedOptions<Integrator::Exact, SynapseKind::CurrentExp>;      // Brette CUBA

// Calls f with the option set that fixes constants c's integrator and synapse kind where one exists, else
// LifAnyOptions.
template <class Real, class F>
void with_lif_options(const LifConstants<Real>& c, F&& f) {
  if (c.integrator == int(Integrator::Euler) && c.synapse == int(SynapseKind::ConductanceExp))
    f(LifCobaOptions{});
  else if (c.integrator == int(Integrator::Exact) && c.synapse == int(SynapseKind::CurrentExp))
    f(LifCubaOptions{});
  else
    f(LifAnyOptions{});
}

template <class Real>
struct LifVars {
  Real v, ge, gi, xe, xi;
};

// Host backends: the chunked step (kHostChunk neurons per index, one `omp simd` loop each; step_inputs.hpp).
struct LifChunkTag {};

template <class Exec, class Real, class Options = LifAnyOptions>
struct LifStepFunctor {
  using Mem = typename Exec::memory_space;
  PointState<Real, Mem> s;
  StepInputs<Real, Mem> in;
  LifConstants<Real> c;

  KOKKOS_INLINE_FUNCTION int integrator() const { return Options::integrator(c); }
  KOKKOS_INLINE_FUNCTION bool alpha() const { return Options::synapse(c) == int(SynapseKind::ConductanceAlpha); }
  KOKKOS_INLINE_FUNCTION bool conductance() const { return Options::synapse(c) != int(SynapseKind::CurrentExp); }

  // Time derivatives; nr = 1 when not refractory (v frozen otherwise).
  KOKKOS_FORCEINLINE_FUNCTION LifVars<Real> rhs(const LifVars<Real>& x, Real I, Real nr) const {
    LifVars<Real> d;
    const Real syn = conductance() ? x.ge * (c.e_e - x.v) + x.gi * (c.e_i - x.v) : c.g_l * (x.ge + x.gi);
    d.v = nr * (c.g_l * (c.e_l - x.v) + syn + I) / c.c_m;
    if (alpha()) {
      d.ge = (x.xe - x.ge) / c.tau_e;
      d.gi = (x.xi - x.gi) / c.tau_i;
      d.xe = -x.xe / c.tau_e;
      d.xi = -x.xi / c.tau_i;
    } else {
      d.ge = -x.ge / c.tau_e;
      d.gi = -x.gi / c.tau_i;
      d.xe = d.xi = Real(0);
    }
    return d;
  }

  KOKKOS_FORCEINLINE_FUNCTION static LifVars<Real> axpy(const LifVars<Real>& x, Real h, const LifVars<Real>& d) {
    return {x.v + h * d.v, x.ge + h * d.ge, x.gi + h * d.gi, x.xe + h * d.xe, x.xi + h * d.xi};
  }

  // v advanced over the step when not refractory (nr), kept otherwise: a select, so that a vector loop computes
  // both and keeps one.
  KOKKOS_FORCEINLINE_FUNCTION LifVars<Real> exponential_euler(const LifVars<Real>& x, Real I, bool nr) const {
    LifVars<Real> y = x;
    Real A, B;  // dv/dt = A + B v with the synaptic variables frozen
    if (conductance()) {
      B = -(c.g_l + x.ge + x.gi) / c.c_m;
      A = (c.g_l * c.e_l + x.ge * c.e_e + x.gi * c.e_i + I) / c.c_m;
    } else {
      B = -c.g_l / c.c_m;
      A = (c.g_l * c.e_l + c.g_l * (x.ge + x.gi) + I) / c.c_m;
    }
    const Real ba = A / B;
    const Real v = -ba + (ba + x.v) * kx::exp(B * c.dt);
    y.v = nr ? v : x.v;
    if (alpha()) {
      y.ge = x.xe + (x.ge - x.xe) * c.decay_e;
      y.gi = x.xi + (x.gi - x.xi) * c.decay_i;
      y.xe = x.xe * c.decay_e;
      y.xi = x.xi * c.decay_i;
    } else {
      y.ge = x.ge * c.decay_e;
      y.gi = x.gi * c.decay_i;
    }
    return y;
  }

  // Exact solution for current synapses: v driven by two exponentially decaying inputs.
  KOKKOS_FORCEINLINE_FUNCTION LifVars<Real> exact_current(const LifVars<Real>& x, Real I, bool nr) const {
    LifVars<Real> y = x;
    const Real tau_m = c.c_m / c.g_l;
    const Real v_inf = c.e_l + I / c.g_l;
    const Real v = v_inf + (x.v - v_inf) * c.decay_m + x.ge * c.tau_e / (c.tau_e - tau_m) * (c.decay_e - c.decay_m) +
                   x.gi * c.tau_i / (c.tau_i - tau_m) * (c.decay_i - c.decay_m);
    y.v = nr ? v : x.v;
    y.ge = x.ge * c.decay_e;
    y.gi = x.gi * c.decay_i;
    return y;
  }

  // One neuron over one step: state x (this step's arrivals added), input current I, not refractory nr.
  KOKKOS_FORCEINLINE_FUNCTION LifVars<Real> advance(const LifVars<Real>& x, const Real I, const bool nr) const {
    const Real nrf = nr ? Real(1) : Real(0);
    const Real dt = c.dt;
    switch (integrator()) {
      case int(Integrator::Euler):
        return axpy(x, dt, rhs(x, I, nrf));
      case int(Integrator::Rk4): {
        const LifVars<Real> k1 = rhs(x, I, nrf);
        const LifVars<Real> k2 = rhs(axpy(x, dt / 2, k1), I, nrf);
        const LifVars<Real> k3 = rhs(axpy(x, dt / 2, k2), I, nrf);
        const LifVars<Real> k4 = rhs(axpy(x, dt, k3), I, nrf);
        LifVars<Real> y;
        y.v = x.v + dt / 6 * (k1.v + 2 * k2.v + 2 * k3.v + k4.v);
        y.ge = x.ge + dt / 6 * (k1.ge + 2 * k2.ge + 2 * k3.ge + k4.ge);
        y.gi = x.gi + dt / 6 * (k1.gi + 2 * k2.gi + 2 * k3.gi + k4.gi);
        y.xe = x.xe + dt / 6 * (k1.xe + 2 * k2.xe + 2 * k3.xe + k4.xe);
        y.xi = x.xi + dt / 6 * (k1.xi + 2 * k2.xi + 2 * k3.xi + k4.xi);
        return y;
      }
      case int(Integrator::Exact):
        return conductance() ? exponential_euler(x, I, nr) : exact_current(x, I, nr);
      default:
        return exponential_euler(x, I, nr);
    }
  }

  // Neuron i of step `step`: its state with the arrivals `arrive_e`, `arrive_i` added, advanced with current I;
  // threshold and reset; returns whether it spiked. Written so that every branch is a select (the host's vector
  // loop).
  KOKKOS_FORCEINLINE_FUNCTION bool update(const int i, const int step, const Real arrive_e, const Real arrive_i,
                                     const Real I) const {
    const bool has_g = s.ge.extent(0) != 0;
    LifVars<Real> x{s.v(i), Real(0), Real(0), Real(0), Real(0)};
    if (has_g) {
      x.ge = s.ge(i);
      x.gi = s.gi(i);
    }
    if (alpha()) {
      x.xe = s.xe(i) + Real(2.718281828459045) * arrive_e;
      x.xi = s.xi(i) + Real(2.718281828459045) * arrive_i;
    } else if (has_g) {
      x.ge += arrive_e;
      x.gi += arrive_i;
    }
    const int last = s.last_spike(i);
    const bool nr = step - last >= c.refractory_steps;
    LifVars<Real> y = advance(x, I, nr);
    const bool spike = nr && (c.inclusive ? y.v >= c.v_th : y.v > c.v_th);
    s.v(i) = spike ? c.v_reset : y.v;
    s.last_spike(i) = spike ? step : last;
    if (has_g) {
      s.ge(i) = y.ge;
      s.gi(i) = y.gi;
    }
    if (alpha()) {
      s.xe(i) = y.xe;
      s.xi(i) = y.xi;
    }
    return spike;
  }

  // Whether the step reads arrivals for this option set (LIF with delta synapses has none).
  KOKKOS_INLINE_FUNCTION bool takes_arrivals() const { return alpha() || s.ge.extent(0) != 0; }

  // GPUs: one neuron per index.
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const bool take = takes_arrivals();
    const Real e = take ? in.take(0, i) : Real(0), inh = take ? in.take(1, i) : Real(0);
    in.emit(i, update(i, in.step(), e, inh, in.current(i)));
  }

  // Host backends: the neurons of one chunk (host_chunk_range). The inputs first (noise draws are scalar code), then one
  // vector loop over the chunk that writes the spike flags (spikes.csv and delivery read them as on every CPU).
  void operator()(LifChunkTag, const int chunk) const {
    const HostChunkRange range = host_chunk_range(chunk, static_cast<int>(s.v.extent(0)));
    const int b = range.begin, len = range.len;
    const int step = in.step();
    Real current[kHostChunk];
    in.chunk_currents(b, len, current);
    const bool take = takes_arrivals();
    long long* const ring_e = take ? in.slot_row(step, 0) + b : nullptr;
    long long* const ring_i = take ? in.slot_row(step, 1) + b : nullptr;
    const double scale_e = in.inv_scale[0], scale_i = in.inv_scale[1];
    if (in.spikes.append) {  // spikes appended by atomics (a benchmark's choice on CPUs): scalar code
      for (int k = 0; k < len; ++k) {
        const Real e = take ? in.arrival(ring_e + k, scale_e) : Real(0), inh = take ? in.arrival(ring_i + k, scale_i) : Real(0);
        in.emit(b + k, update(b + k, step, e, inh, current[k]));
      }
      return;
    }
    int* const flags = &in.spikes.flags(b);
    if (take) {
#pragma omp simd
      for (int k = 0; k < len; ++k)
        flags[k] = update(b + k, step, in.arrival(ring_e + k, scale_e), in.arrival(ring_i + k, scale_i), current[k]) ? 1 : 0;
    } else {
#pragma omp simd
      for (int k = 0; k < len; ++k) flags[k] = update(b + k, step, Real(0), Real(0), current[k]) ? 1 : 0;
    }
  }
};

}  // namespace kbrain::point
