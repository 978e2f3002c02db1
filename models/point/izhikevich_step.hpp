#pragma once
// Izhikevich (2003) neuron: dv/dt = 0.04 v^2 + 5 v + 140 - u + I, du/dt = a (b v - u); v >= 30: v <- c, u <- u + d.
// NetM is the published net.m update (two half steps of v, then u with the new v); Euler advances both from the
// step start (Brian2 'euler'). Threshold and reset follow the integration, so a spike found at the end of step k
// is the one net.m finds at the start of step k+1, and its synaptic current (delta synapses) acts in step k+1.
#include <Kokkos_Core.hpp>

#include "models/point/point_parameters.hpp"
#include "models/point/point_state.hpp"
#include "models/point/step_inputs.hpp"

namespace kbrain::point {

// Host backends: the chunked step (kHostChunk neurons per index, one `omp simd` loop each; step_inputs.hpp).
struct IzhikevichChunkTag {};

template <class Exec, class Real>
struct IzhikevichStepFunctor {
  using Mem = typename Exec::memory_space;
  PointState<Real, Mem> s;
  StepInputs<Real, Mem> in;
  Real dt = Real(1), v_peak = Real(30);
  int integrator = int(Integrator::NetM);

  // Floating-point operations of one neuron's update (each +, -, * and / one; an FMA the compiler forms is two; the
  // input draws, the ring slot's conversion and the reset left out), counted from operator() below:
  // NetM: I 1, dt / 2 1, two half steps of (dv 7 + 2), u 5; Euler: I 1, v 7 + 2, u 5. Keep them with the code.
  static constexpr int kFlopsNetM = 25;
  static constexpr int kFlopsEuler = 15;
  static int flops(int integrator) { return integrator == int(Integrator::NetM) ? kFlopsNetM : kFlopsEuler; }

  KOKKOS_FORCEINLINE_FUNCTION static Real dv(Real v, Real u, Real I) {
    return Real(0.04) * v * v + Real(5) * v + Real(140) - u + I;
  }

  // Neuron i of step `step` with input I (current and arrivals): integrate, threshold, reset; returns whether it
  // spiked. Every branch is a select (the host's vector loop).
  KOKKOS_FORCEINLINE_FUNCTION bool update(const int i, const int step, const Real I) const {
    Real v = s.v(i), u = s.u(i);
    const Real a = s.a(i), b = s.b(i);
    if (integrator == int(Integrator::NetM)) {
      const Real half = dt / Real(2);
      v += half * dv(v, u, I);
      v += half * dv(v, u, I);
      u += dt * a * (b * v - u);
    } else {
      const Real v_old = v;
      v += dt * dv(v_old, u, I);
      u += dt * a * (b * v_old - u);
    }
    const bool spike = v >= v_peak;
    s.v(i) = spike ? s.c(i) : v;
    s.u(i) = spike ? u + s.d(i) : u;
    if (spike) s.last_spike(i) = step;
    return spike;
  }

  // GPUs: one neuron per index.
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const Real I = in.current(i) + in.take(0, i);
    in.emit(i, update(i, in.step(), I));
  }

  // Host backends: the neurons of one chunk (host_chunk_range): the inputs first, then one vector loop over the
  // chunk that writes the spike flags.
  void operator()(IzhikevichChunkTag, const int chunk) const {
    const HostChunkRange range = host_chunk_range(chunk, static_cast<int>(s.v.extent(0)));
    const int b = range.begin, len = range.len;
    const int step = in.step();
    Real input[kHostChunk];
    in.chunk_currents(b, len, input);
    long long* const ring = in.slot_row(step, 0) + b;
    const double scale = in.inv_scale[0];
#pragma omp simd
    for (int k = 0; k < len; ++k) input[k] += in.arrival(ring + k, scale);
    if (in.spikes.append) {  // spikes appended by atomics (a benchmark's choice on CPUs): scalar code
      for (int k = 0; k < len; ++k) in.emit(b + k, update(b + k, step, input[k]));
      return;
    }
    int* const flags = &in.spikes.flags(b);
#pragma omp simd
    for (int k = 0; k < len; ++k) flags[k] = update(b + k, step, input[k]) ? 1 : 0;
  }
};

}  // namespace kbrain::point
