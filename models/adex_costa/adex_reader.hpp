#pragma once
// Reads a variable of the dense plastic AdEx network at the end of the last completed step, for samplers (device)
// and dumps (host mirror): neuron variables by neuron, synapse variables by synapse id pre * n_post + post, with
// traces, r and u decayed to that time and a pending m̄ part applied to A. Reading changes nothing.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include "models/adex_costa/adex_kernels.hpp"
#include "models/adex_costa/adex_schema.hpp"
#include "models/adex_costa/adex_state.hpp"

namespace kbrain::adex {

template <class Real, class Mem>
struct AdexReader {
  AdexState<Real, Mem> st;
  KernelParams<double> p;
  double t = 0;  // time of the last completed step

  KOKKOS_INLINE_FUNCTION Real operator()(int var, std::int64_t index) const {
    switch (var) {
      case V_M: return st.V(index);
      case V_T: return st.VT(index);
      case ADAPT_X: return st.x(index);
      case I_SYN: return st.I(index);
      default: break;
    }
    const std::int64_t i = index / st.n_post, j = index - i * st.n_post;
    const std::int64_t local = st.slot(i, j);  // the synapse values hold rows from row_begin, in the state's layout
    const double since_pre = t - st.t_pre(i), since_post = t - st.t_post(j);
    switch (var) {
      case SYN_U: return st.U(local);
      case SYN_A: {
        const double A = st.A(local);
        return st.post_prev(j) ? Real(clip(A - p.half_etaA * st.mbar(0), p.Amin, p.Amax)) : Real(A);
      }
      case SYN_R: return Real((double(st.R(local)) - 1.0) * kx::exp(-since_pre / p.tau_r) + 1.0);
      case SYN_USE: {
        const double U = st.U(local);
        return Real(U + (double(st.u(local)) - U) * kx::exp(-since_pre / p.tau_u));
      }
      case SYN_FFP: return Real(st.ffp_val(i) * kx::exp(-since_pre / p.tau_FFp));
      case SYN_FBP: return Real(st.fbp_val(j) * kx::exp(-since_post / p.tau_FBp));
      case SYN_FBN: return Real(st.fbn_val(j) * kx::exp(-since_post / p.tau_FBn));
      default: return Real(0);
    }
  }
};

// The state copied to host memory (for dumps and tests): a snapshot, also on host backends.
template <class Real, class Mem>
AdexReader<Real, Kokkos::HostSpace> host_copy(const AdexReader<Real, Mem>& r) {
  AdexReader<Real, Kokkos::HostSpace> h;
  h.p = r.p;
  h.t = r.t;
  h.st.n_pre = r.st.n_pre;
  h.st.n_post = r.st.n_post;
  h.st.pitch = r.st.pitch;
  h.st.row_begin = r.st.row_begin;
  h.st.rows = r.st.rows;
  auto copy = [](const auto& v) {  // a copy even of host memory: the result must not change with the next step
    auto m = Kokkos::create_mirror(Kokkos::HostSpace(), v);
    Kokkos::deep_copy(m, v);
    return m;
  };
  h.st.V = copy(r.st.V); h.st.VT = copy(r.st.VT); h.st.x = copy(r.st.x); h.st.I = copy(r.st.I);
  h.st.tile_shift = r.st.tile_shift;  // the values keep their layout
  if (r.st.tile_shift < 0)
    h.st.point_values({copy(r.st.R), copy(r.st.u), copy(r.st.U), copy(r.st.A)});
  else
    h.st.point_values({copy(r.st.values), {}, {}, {}});
  h.st.conn = copy(r.st.conn);
  h.st.ffp_val = copy(r.st.ffp_val); h.st.t_pre = copy(r.st.t_pre);
  h.st.fbp_val = copy(r.st.fbp_val); h.st.fbn_val = copy(r.st.fbn_val); h.st.t_post = copy(r.st.t_post);
  h.st.post_prev = copy(r.st.post_prev); h.st.mbar = copy(r.st.mbar);
  h.st.pre_flag = copy(r.st.pre_flag); h.st.post_flag = copy(r.st.post_flag);
  return h;
}

}  // namespace kbrain::adex
