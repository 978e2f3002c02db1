#pragma once
// Parameters of the Neofytou 2019 network: AdEx neurons with an adaptive threshold and Costa 2015 synapses
// (STP: resources r, utilisation u; STDP: learned release probability U and amplitude A; traces FFp, FBp, FBn).
// Units: mV, ms, nS, pF, pA. Values: ModelDB 184487 (docs/models/adex-costa.md, ../shared/docs/specs/neofytou.md).
// Host plain data; the kernels take a copy converted to their precision (KernelParams).
#include <cmath>

namespace kbrain::adex {

struct AdexCostaParams {
  // AdEx: C dV/dt = gL(EL - V) + gL DeltaT exp((V - VT)/DeltaT) + I - x; on V > VT: V <- Vr, x <- x + b, VT <- VTmax
  double C = 281, gL = 30, EL = -70.6, DeltaT = 2, VTrest = -45, VTmax = 18, tauVT = 50, tauw = 144;
  double c = 4, b = 80.5, Vr = -70.6;
  // Costa 2015 synapse
  double tau_FFp = 66.6, tau_FBp = 230.2, tau_FBn = 32.7, tau_r = 200, tau_u = 50;
  double s = 10000;  // pA: the synaptic current is s A R u at a presynaptic event
  double AFBn = 0.1771, AFBp = 0.1548, AFFp = 0.0618, etaU = 0.15, etaA = 0.15;
  double Umin = 0, Umax = 1, Amin = 0, Amax = 2;
};

// The initial U and A of presynaptic row `i`: the Gaussian profile of the original 100 inputs, centred on input 25;
// larger networks repeat it with the row index modulo 100 (the study does not say; docs/models/adex-costa.md).
inline double row_profile(long long i, double width, double lo, double hi) {
  const double k = double(i % 100 + 1) - 25.0;
  return std::exp(-k * k / (2.0 * width * width)) * (hi - lo) + lo;
}
inline double initial_U(const AdexCostaParams& p, long long i) { return row_profile(i, 5.0, p.Umin, p.Umax); }
inline double initial_A(const AdexCostaParams& p, long long i) { return row_profile(i, 8.0, p.Amin, p.Amax); }

}  // namespace kbrain::adex
