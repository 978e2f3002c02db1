#pragma once
// The synapse layouts the AdEx layout probes compare with the product's arrays (adex_layout_probe.cpp on GPUs,
// adex_cpu_layout_probe.cpp on CPUs): a struct of R, u, U, A per synapse (Interleaved) and pairs (R, u), (U, A)
// (Split); each copies itself from the product state, loads and stores what a touch needs, and reads its values back
// in bits()'s order. Also the probes' two scenarios and the count of values that differ from the product's.
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "bench/lab/adex_probe_support.hpp"
#include "models/adex_costa/adex_synapse_pass.hpp"

namespace kbrain::adex::probe {

template <class Real>
struct alignas(4 * sizeof(Real)) Synapse {
  Real R, u, U, A;
};
template <class Real>
struct alignas(2 * sizeof(Real)) Two {
  Real first, second;
};

// A layout's synapse values; the flags, traces and partial sums are the product state's.
template <class Real>
struct Interleaved {
  Kokkos::View<Synapse<Real>*, Mem> syn;
  KOKKOS_INLINE_FUNCTION void load(std::int64_t id, bool pre, SynapseValues<Real>& v) const {
    const Synapse<Real> s = syn(id);
    v.A = s.A;
    if (pre) v.U = s.U, v.R = s.R, v.u = s.u;
  }
  KOKKOS_INLINE_FUNCTION void store(std::int64_t id, bool pre, const SynapseValues<Real>& v) const {
    if (pre)
      syn(id) = Synapse<Real>{v.R, v.u, v.U, v.A};
    else
      syn(id).A = v.A;
  }
  KOKKOS_INLINE_FUNCTION void from(const AdexState<Real, Mem>& st, std::int64_t id) const {
    syn(id) = Synapse<Real>{st.R(id), st.u(id), st.U(id), st.A(id)};
  }
  void values(std::vector<Real>& out) const {  // in bits()'s order: R, u, U, A arrays one after the other
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), syn);
    const std::size_t n = h.extent(0);
    out.assign(4 * n, Real(0));
    for (std::size_t k = 0; k < n; ++k) out[k] = h(k).R, out[n + k] = h(k).u, out[2 * n + k] = h(k).U, out[3 * n + k] = h(k).A;
  }
};

template <class Real>
struct Split {
  Kokkos::View<Two<Real>*, Mem> ru, UA;
  KOKKOS_INLINE_FUNCTION void load(std::int64_t id, bool pre, SynapseValues<Real>& v) const {
    const Two<Real> ua = UA(id);
    v.A = ua.second;
    if (pre) {
      const Two<Real> r = ru(id);
      v.U = ua.first, v.R = r.first, v.u = r.second;
    }
  }
  KOKKOS_INLINE_FUNCTION void store(std::int64_t id, bool pre, const SynapseValues<Real>& v) const {
    if (pre) {
      ru(id) = Two<Real>{v.R, v.u};
      UA(id) = Two<Real>{v.U, v.A};
    } else {
      UA(id).second = v.A;
    }
  }
  KOKKOS_INLINE_FUNCTION void from(const AdexState<Real, Mem>& st, std::int64_t id) const {
    ru(id) = Two<Real>{st.R(id), st.u(id)};
    UA(id) = Two<Real>{st.U(id), st.A(id)};
  }
  void values(std::vector<Real>& out) const {
    auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ru);
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), UA);
    const std::size_t n = r.extent(0);
    out.assign(4 * n, Real(0));
    for (std::size_t k = 0; k < n; ++k)
      out[k] = r(k).first, out[n + k] = r(k).second, out[2 * n + k] = a(k).first, out[3 * n + k] = a(k).second;
  }
};

template <class Real, class Layout>
struct FromArrays {
  AdexState<Real, Mem> st;
  Layout layout;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t id) const { layout.from(st, id); }
};

enum class Scenario { All, PostOnly };

// The benchmark state of the scenario (fill() gives every row and column firing and every column owing m̄).
template <class Real>
void prepare(AdexState<Real, Mem>& st, Scenario scenario) {
  fill(st);
  if (scenario == Scenario::PostOnly) Kokkos::deep_copy(st.pre_flag, 0);
  Kokkos::fence();
}

// Values of `got` whose bits differ from `reference`'s.
template <class Real>
long long differing(const std::vector<Real>& got, const std::vector<Real>& reference) {
  long long differ = 0;
  for (std::size_t k = 0; k < got.size(); ++k) differ += std::memcmp(&got[k], &reference[k], sizeof(Real)) != 0;
  return differ;
}

inline const char* scenario_name(Scenario scenario) { return scenario == Scenario::All ? "all" : "post only"; }

// A layout copied from the prepared state of `scenario`, `launch` (three passes over it), then its values against
// the product's after three passes (`reference`), printed as one line.
template <class Real, class Layout, class Launch>
void check_layout(AdexState<Real, Mem>& st, Scenario scenario, const std::vector<Real>& reference, const char* precision,
                  const char* what, const Layout& layout, const Launch& launch) {
  prepare(st, scenario);
  Kokkos::parallel_for("from_arrays", Range(0, std::int64_t(st.R.extent(0))), FromArrays<Real, Layout>{st, layout});
  for (int k = 0; k < 3; ++k) launch();
  Kokkos::fence();
  std::vector<Real> got;
  layout.values(got);
  std::printf("%-6s n %lld %-9s %-28s values differing from the product's after 3 passes: %lld of %zu\n", precision,
              static_cast<long long>(st.n_pre), scenario_name(scenario), what, differing(got, reference), got.size());
}

// The sizes given on the command line, or `defaults`.
inline std::vector<std::int64_t> sizes_from(int argc, char** argv, std::vector<std::int64_t> defaults) {
  std::vector<std::int64_t> sizes;
  for (int k = 1; k < argc; ++k)
    if (std::atoll(argv[k]) > 0) sizes.push_back(std::atoll(argv[k]));
  return sizes.empty() ? defaults : sizes;
}

// Every case of a layout probe: for each size (the command line's, or `defaults`) the copy yardstick, then both
// scenarios in float and double: run(Real{}, n, precision, scenario).
template <class Run>
void for_each_case(int argc, char** argv, std::vector<std::int64_t> defaults, const Run& run) {
  for (const std::int64_t n : sizes_from(argc, argv, std::move(defaults))) {
    copy_yardstick(n * n * 16);
    for (const Scenario scenario : {Scenario::All, Scenario::PostOnly}) {
      run(float{}, n, "float", scenario);
      run(double{}, n, "double", scenario);
    }
  }
}

}  // namespace kbrain::adex::probe
