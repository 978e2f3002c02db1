#pragma once
// Device views in tests (and lab probes): a view's values on the host, whether two views hold the same bits, and a
// view of counter-drawn values (the same on every backend).
#include <cstdint>
#include <cstring>
#include <string>

#include <Kokkos_Core.hpp>

#include "core/rng/counter_rng.hpp"

namespace kbrain::test {

// A device view's values on the host.
template <class V>
auto host(const V& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

// Whether two device views hold the same bits (and are not empty).
template <class V>
bool same_bits(const V& a, const V& b) {
  const auto ha = host(a), hb = host(b);
  if (ha.size() != hb.size()) return false;
  for (std::size_t k = 0; k < ha.size(); ++k)
    if (std::memcmp(&ha(k), &hb(k), sizeof(ha(k))) != 0) return false;
  return ha.size() > 0;
}

// n values lo + (hi - lo) u, u = counter_uniform(11, i, salt).
template <class Real, class Mem>
Kokkos::View<Real*, Mem> counter_view(const std::string& name, int n, double lo, double hi, int salt) {
  Kokkos::View<Real*, Mem> v(name, n);
  auto h = Kokkos::create_mirror_view(v);
  for (int i = 0; i < n; ++i) h(i) = Real(lo + (hi - lo) * counter_uniform(11, std::uint64_t(i), std::uint64_t(salt)));
  Kokkos::deep_copy(v, h);
  return v;
}

}  // namespace kbrain::test
