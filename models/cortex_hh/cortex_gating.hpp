#pragma once
// Gating functions of the Wang 2012 cortical HH cells (docs/models/cortex-hh.md), as the eight functions
// m_inf, tau_m, h_inf, tau_h, n_inf, tau_n, p_inf, tau_p of the absolute membrane potential v (mV); tau in ms.
//  - TraubMiles (default, ../shared/docs/models/point-neurons.md §4): Na/K of the Destexhe/Pospischil 2008 cells,
//    alpha/beta rates with u = v - VT (VT = -55 mV) turned into x_inf = a/(a+b), tau_x = 1/(a+b);
//  - Wang2012: the study's printed functions with V = v + 70 mV (V measured from rest, the documented offset);
//    tau_m keeps its printed jump at V = 38.
// p (M current, Yamada kinetics, pyramidal cells only) is the same in both: the study's p_inf/tau_p with the +70 mV
// offset are exactly Destexhe's IM with v absolute.
#include <Kokkos_Core.hpp>

#include "core/kokkos_compat.hpp"

namespace kbrain::cortex {

enum class Gating : int { TraubMiles = 0, Wang2012 = 1 };
constexpr int kGateFunctions = 8;  // m_inf, tau_m, h_inf, tau_h, n_inf, tau_n, p_inf, tau_p

template <class Real>
KOKKOS_INLINE_FUNCTION Real cortex_exprel(Real x) {  // expm1(x)/x, 1 near 0 (as Brian2's exprel)
  if (kx::fabs(x) < Real(1e-16)) return Real(1);
  return kx::expm1(x) / x;
}

// out[2g] = x_inf, out[2g+1] = tau_x (ms) for g = m, h, n, p.
template <class Real>
KOKKOS_INLINE_FUNCTION void gating_functions(int gating, Real v_t, Real v, Real* out) {
  if (gating == int(Gating::Wang2012)) {
    const Real V = v + Real(70);
    out[0] = Real(1) / (Real(1) + kx::exp((Real(32) - V) / Real(8)));
    out[1] = V <= Real(38) ? Real(0.0125) + Real(0.007) * kx::exp((V - Real(40)) / Real(8))
                           : Real(0.01) + Real(0.0725) * kx::exp((Real(40) - V) / Real(8));
    out[2] = Real(1) / (Real(1) + kx::exp((V - Real(12.6)) / Real(7)));
    out[3] = Real(0.75) + Real(5.75) / (Real(1) + kx::exp((V - Real(36.5)) / Real(10)));
    out[4] = Real(1) / (Real(1) + kx::exp((Real(40.5) - V) / Real(10)));
    out[5] = V <= Real(60) ? Real(0.75) + Real(13.05) * kx::exp((V - Real(60)) / Real(10))
                           : Real(0.75) + Real(13.05) * kx::exp((Real(60) - V) / Real(10));
  } else {
    const Real u = v - v_t;
    const Real am = Real(0.32 * 4) / cortex_exprel((Real(13) - u) / Real(4));
    const Real bm = Real(0.28 * 5) / cortex_exprel((u - Real(40)) / Real(5));
    const Real ah = Real(0.128) * kx::exp((Real(17) - u) / Real(18));
    const Real bh = Real(4) / (Real(1) + kx::exp((Real(40) - u) / Real(5)));
    const Real an = Real(0.032 * 5) / cortex_exprel((Real(15) - u) / Real(5));
    const Real bn = Real(0.5) * kx::exp((Real(10) - u) / Real(40));
    out[1] = Real(1) / (am + bm);
    out[0] = am * out[1];
    out[3] = Real(1) / (ah + bh);
    out[2] = ah * out[3];
    out[5] = Real(1) / (an + bn);
    out[4] = an * out[5];
  }
  const Real w = v + Real(35);
  out[6] = Real(1) / (Real(1) + kx::exp(-w / Real(10)));
  out[7] = Real(1000) / (Real(3.3) * kx::exp(w / Real(20)) + kx::exp(-w / Real(20)));
}

// Gate update factor over one step dt for time constant tau: the step is x <- x_inf + (x - x_inf) * f with
// f = 1 - dt/tau (forward Euler) or exp(-dt/tau) (exponential Euler: exact for v frozen over the step).
template <class Real>
KOKKOS_INLINE_FUNCTION Real gate_factor(Real tau, Real dt, bool exponential) {
  return exponential ? kx::exp(-dt / tau) : Real(1) - dt / tau;
}

}  // namespace kbrain::cortex
