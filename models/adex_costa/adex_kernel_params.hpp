#pragma once
// The constants of the dense AdEx kernels (adex_kernels.hpp, adex_synapse_pass.hpp), in the precision of the
// arithmetic that uses them, and the clip of U and A to their bounds.
#include <Kokkos_Core.hpp>

#include "models/adex_costa/adex_parameters.hpp"

namespace kbrain::adex {

template <class Real>
struct KernelParams {
  Real C, gL, EL, DeltaT, VTrest, VTmax, tauVT, tauw, c, b, Vr, dt;
  Real tau_FFp, tau_FBp, tau_FBn, tau_r, tau_u, s, AFBn, AFBp, AFFp, etaU, etaA, Umin, Umax, Amin, Amax;
  double half_etaA;  // etaA * 0.5, the factor of m̄

  static KernelParams from(const AdexCostaParams& p, double dt) {
    return {Real(p.C), Real(p.gL), Real(p.EL), Real(p.DeltaT), Real(p.VTrest), Real(p.VTmax), Real(p.tauVT),
            Real(p.tauw), Real(p.c), Real(p.b), Real(p.Vr), Real(dt), Real(p.tau_FFp), Real(p.tau_FBp),
            Real(p.tau_FBn), Real(p.tau_r), Real(p.tau_u), Real(p.s), Real(p.AFBn), Real(p.AFBp), Real(p.AFFp),
            Real(p.etaU), Real(p.etaA), Real(p.Umin), Real(p.Umax), Real(p.Amin), Real(p.Amax), p.etaA * 0.5};
  }
};

template <class Real>
KOKKOS_INLINE_FUNCTION Real clip(Real v, Real lo, Real hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

}  // namespace kbrain::adex
