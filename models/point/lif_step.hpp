#pragma once
// Leaky integrate-and-fire step (one neuron per call), Brian2's order within a step: integrate, threshold
// (v > v_threshold and not refractory), reset. During the refractory period v is clamped (Brian2 "unless
// refractory"); synaptic variables keep decaying. Integrators: Euler, ExponentialEuler, Exact, Rk4 (see
// point_parameters.hpp); Exact with conductance synapses is ExponentialEuler (the same for zero conductance).
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
  static LifConstants make(const PointParameters& p) {
    LifConstants c;
    c.dt = Real(p.dt); c.c_m = Real(p.c_m); c.g_l = Real(p.g_l); c.e_l = Real(p.e_l);
    c.v_th = Real(p.v_threshold); c.v_reset = Real(p.v_reset);
    c.tau_e = Real(p.tau_e); c.tau_i = Real(p.tau_i); c.e_e = Real(p.e_e); c.e_i = Real(p.e_i);
    c.decay_e = Real(std::exp(-p.dt / p.tau_e));
    c.decay_i = Real(std::exp(-p.dt / p.tau_i));
    c.decay_m = Real(std::exp(-p.dt * p.g_l / p.c_m));
    c.refractory_steps = static_cast<int>(p.refractory_steps());
    c.integrator = static_cast<int>(p.integrator);
    c.synapse = static_cast<int>(p.synapse);
    return c;
  }
};

template <class Real>
struct LifVars {
  Real v, ge, gi, xe, xi;
};

template <class Exec, class Real>
struct LifStepFunctor {
  using Mem = typename Exec::memory_space;
  PointState<Real, Mem> s;
  StepInputs<Real, Mem> in;
  LifConstants<Real> c;

  KOKKOS_INLINE_FUNCTION bool alpha() const { return c.synapse == int(SynapseKind::ConductanceAlpha); }
  KOKKOS_INLINE_FUNCTION bool conductance() const { return c.synapse != int(SynapseKind::CurrentExp); }

  // Time derivatives; nr = 1 when not refractory (v frozen otherwise).
  KOKKOS_INLINE_FUNCTION LifVars<Real> rhs(const LifVars<Real>& x, Real I, Real nr) const {
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

  KOKKOS_INLINE_FUNCTION static LifVars<Real> axpy(const LifVars<Real>& x, Real h, const LifVars<Real>& d) {
    return {x.v + h * d.v, x.ge + h * d.ge, x.gi + h * d.gi, x.xe + h * d.xe, x.xi + h * d.xi};
  }

  KOKKOS_INLINE_FUNCTION LifVars<Real> exponential_euler(const LifVars<Real>& x, Real I, bool nr) const {
    LifVars<Real> y = x;
    if (nr) {
      Real A, B;  // dv/dt = A + B v with the synaptic variables frozen
      if (conductance()) {
        B = -(c.g_l + x.ge + x.gi) / c.c_m;
        A = (c.g_l * c.e_l + x.ge * c.e_e + x.gi * c.e_i + I) / c.c_m;
      } else {
        B = -c.g_l / c.c_m;
        A = (c.g_l * c.e_l + c.g_l * (x.ge + x.gi) + I) / c.c_m;
      }
      const Real ba = A / B;
      y.v = -ba + (ba + x.v) * kx::exp(B * c.dt);
    }
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
  KOKKOS_INLINE_FUNCTION LifVars<Real> exact_current(const LifVars<Real>& x, Real I, bool nr) const {
    LifVars<Real> y = x;
    if (nr) {
      const Real tau_m = c.c_m / c.g_l;
      const Real v_inf = c.e_l + I / c.g_l;
      y.v = v_inf + (x.v - v_inf) * c.decay_m + x.ge * c.tau_e / (c.tau_e - tau_m) * (c.decay_e - c.decay_m) +
            x.gi * c.tau_i / (c.tau_i - tau_m) * (c.decay_i - c.decay_m);
    }
    y.ge = x.ge * c.decay_e;
    y.gi = x.gi * c.decay_i;
    return y;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    LifVars<Real> x{s.v(i), Real(0), Real(0), Real(0), Real(0)};
    if (s.ge.extent(0) != 0) {
      x.ge = s.ge(i);
      x.gi = s.gi(i);
    }
    if (alpha()) {
      x.xe = s.xe(i) + Real(2.718281828459045) * in.take(0, i);
      x.xi = s.xi(i) + Real(2.718281828459045) * in.take(1, i);
    } else if (s.ge.extent(0) != 0) {
      x.ge += in.take(0, i);
      x.gi += in.take(1, i);
    }
    const Real I = in.current(i);
    const int last = s.last_spike(i);
    const bool nr = in.step() - last >= c.refractory_steps;
    const Real nrf = nr ? Real(1) : Real(0);
    const Real dt = c.dt;
    LifVars<Real> y;
    switch (c.integrator) {
      case int(Integrator::Euler):
        y = axpy(x, dt, rhs(x, I, nrf));
        break;
      case int(Integrator::Rk4): {
        const LifVars<Real> k1 = rhs(x, I, nrf);
        const LifVars<Real> k2 = rhs(axpy(x, dt / 2, k1), I, nrf);
        const LifVars<Real> k3 = rhs(axpy(x, dt / 2, k2), I, nrf);
        const LifVars<Real> k4 = rhs(axpy(x, dt, k3), I, nrf);
        y.v = x.v + dt / 6 * (k1.v + 2 * k2.v + 2 * k3.v + k4.v);
        y.ge = x.ge + dt / 6 * (k1.ge + 2 * k2.ge + 2 * k3.ge + k4.ge);
        y.gi = x.gi + dt / 6 * (k1.gi + 2 * k2.gi + 2 * k3.gi + k4.gi);
        y.xe = x.xe + dt / 6 * (k1.xe + 2 * k2.xe + 2 * k3.xe + k4.xe);
        y.xi = x.xi + dt / 6 * (k1.xi + 2 * k2.xi + 2 * k3.xi + k4.xi);
        break;
      }
      case int(Integrator::Exact):
        y = conductance() ? exponential_euler(x, I, nr) : exact_current(x, I, nr);
        break;
      default:
        y = exponential_euler(x, I, nr);
    }
    const bool spike = nr && y.v > c.v_th;
    if (spike) {
      y.v = c.v_reset;
      s.last_spike(i) = in.step();
    }
    in.emit(i, spike);
    s.v(i) = y.v;
    if (s.ge.extent(0) != 0) {
      s.ge(i) = y.ge;
      s.gi(i) = y.gi;
    }
    if (alpha()) {
      s.xe(i) = y.xe;
      s.xi(i) = y.xi;
    }
  }
};

}  // namespace kbrain::point
