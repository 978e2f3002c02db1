// Host-side tables for the random network generators (see random_network.hpp and docs/network-generators.md).
// Probabilities are computed here in long double and stored as 64-bit fixed point; the device only compares.
#include "core/network/random_network.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

namespace kbrain {

namespace {

constexpr long double kTwo64 = 18446744073709551616.0L;
constexpr long double kTwo63 = 9223372036854775808.0L;

std::uint64_t to_fixed64(long double probability) {
  if (!(probability > 0)) return 0;
  const long double scaled = std::floor(probability * kTwo64 + 0.5L);
  return scaled >= kTwo64 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(scaled);
}

std::int32_t add_sampler(RandomNetworkTables& t, long double p) {
  return add_geometric_sampler(t.geometric, t.samplers, p);
}

// Number of cells p with p and p + (ddx, ddy, ddz) both in the lattice. The cells 0..N-1 fill the cube row-major:
// F full x-slabs, then R full y-rows of slab F, then t cells of row R: three boxes.
std::int64_t lattice_pairs(std::int64_t b, std::int64_t n, int ddx, int ddy, int ddz) {
  struct Box {
    std::int64_t lo[3], hi[3];
  };
  const std::int64_t F = n / (b * b), rest = n % (b * b), R = rest / b, t = rest % b;
  const Box boxes[3] = {{{0, 0, 0}, {F, b, b}}, {{F, 0, 0}, {F + 1, R, b}}, {{F, R, 0}, {F + 1, R + 1, t}}};
  const int d[3] = {ddx, ddy, ddz};
  std::int64_t total = 0;
  for (const Box& a : boxes)
    for (const Box& c : boxes) {
      std::int64_t count = 1;
      for (int k = 0; k < 3 && count > 0; ++k) {
        const std::int64_t lo = std::max(a.lo[k], c.lo[k] - d[k]), hi = std::min(a.hi[k], c.hi[k] - d[k]);
        count *= std::max<std::int64_t>(0, hi - lo);
      }
      total += count;
    }
  return total;
}

void check_spec(const RandomNetworkSpec& s) {
  const char* kind = s.kind_name();
  const std::int64_t max_cells = std::numeric_limits<std::int32_t>::max();
  if (s.cells < 2 || s.cells > max_cells)
    throw std::invalid_argument(fmt::format("{}: cells must be in [2, {}] (got {})", kind, max_cells, s.cells));
  if (!std::isfinite(s.density) || !(s.density > 0))
    throw std::invalid_argument(fmt::format("{}: density must be a finite number > 0 (got {})", kind, s.density));
  if (!std::isfinite(s.g_low) || !std::isfinite(s.g_high) || s.g_low < 0 || s.g_high < s.g_low)
    throw std::invalid_argument(fmt::format("{}: conductance range must satisfy 0 <= low <= high (got [{}, {}))",
                                            kind, s.g_low, s.g_high));
  if (s.kind == RandomNetworkSpec::Kind::Uniform) {
    if (s.density > double(s.cells - 1))
      throw std::invalid_argument(fmt::format("uniform: density {} exceeds the {} other cells", s.density,
                                              s.cells - 1));
    if (s.exact && s.density != std::floor(s.density))
      throw std::invalid_argument(fmt::format("uniform: mode exact needs an integer density (got {})", s.density));
    if (s.exact && s.symmetric)
      throw std::invalid_argument("uniform: mode exact cannot be symmetric (an exact-degree symmetric graph is a "
                                  "random regular graph, which cannot be drawn cell by cell); use mode bernoulli");
  } else {
    if (s.exact) throw std::invalid_argument("gaussian3d: mode exact is only available for uniform networks");
    if (!(s.sigma > 0) || !(s.scale > 0) || !std::isfinite(s.sigma * s.scale))
      throw std::invalid_argument(
          fmt::format("gaussian3d: sigma and scale must be finite and > 0 (got {}, {})", s.sigma, s.scale));
  }
}

void make_gaussian(RandomNetworkTables& t) {
  const RandomNetworkSpec& s = t.spec;
  const std::int64_t b = t.side = gaussian_lattice_side(s.cells);
  const long double width = static_cast<long double>(s.sigma) * s.scale;  // in lattice units
  const long double two_w2 = 2 * width * width;
  // Offsets with weight exp(-r^2 / 2w^2) >= 2^-36 (r <= 7.07 w); farther partners are left out (documented
  // truncation: a fraction < 1e-9 of the junctions).
  const long double r2_max = two_w2 * 36 * std::log(2.0L);
  const std::int64_t reach = std::min<std::int64_t>(b - 1, static_cast<std::int64_t>(std::sqrt(r2_max)));
  if (reach > 200)
    throw std::invalid_argument(fmt::format("gaussian3d: sigma * scale = {} lattice units reaches {} cells in each "
                                            "direction; at most 200 are supported (offset table size)",
                                            double(width), reach));
  struct Offset {
    std::int64_t r2;
    int x, y, z;
  };
  std::vector<Offset> all;
  long double weighted_pairs = 0;  // sum over offsets of w * (cells that have this neighbour in the lattice)
  for (int x = -int(reach); x <= reach; ++x)
    for (int y = -int(reach); y <= reach; ++y)
      for (int z = -int(reach); z <= reach; ++z) {
        const std::int64_t r2 = std::int64_t(x) * x + std::int64_t(y) * y + std::int64_t(z) * z;
        if (r2 == 0 || r2 > r2_max) continue;
        const std::int64_t pairs = lattice_pairs(b, s.cells, x, y, z);
        if (pairs == 0) continue;
        weighted_pairs += std::exp(-r2 / two_w2) * pairs;
        const bool upper = x > 0 || (x == 0 && (y > 0 || (y == 0 && z > 0)));  // partner id > own id
        if (!s.symmetric || upper) all.push_back({r2, x, y, z});
      }
  std::sort(all.begin(), all.end(), [](const Offset& a, const Offset& c) {
    return a.r2 != c.r2 ? a.r2 < c.r2 : std::tie(a.x, a.y, a.z) < std::tie(c.x, c.y, c.z);
  });
  // density = c * weighted_pairs / N on average (directed; symmetric: each pair decided once, same mean degree)
  const long double c = s.density * static_cast<long double>(s.cells) / weighted_pairs;
  const long double p_max = all.empty() ? 0 : c * std::exp(-all.front().r2 / two_w2);
  if (all.empty() || p_max > 1) {
    const long double reachable = all.empty() ? 0 : s.density / p_max;
    throw std::invalid_argument(fmt::format(
        "gaussian3d: density {} is not reachable with sigma * scale = {} on {} cells (nearest partners would need "
        "probability {:.3g} > 1); the largest mean density is {:.1f}",
        s.density, double(width), s.cells, double(p_max), double(reachable)));
  }
  t.c = static_cast<double>(c);
  long double band_p = 0;
  for (std::size_t k = 0; k < all.size(); ++k) {
    const long double p = c * std::exp(-all[k].r2 / two_w2);
    if (k == 0 || p < band_p / 2) {  // new band: thinning acceptance stays >= 1/2
      if (k > 0) t.band_end.push_back(static_cast<std::int64_t>(k));
      band_p = p;
      t.band_begin.push_back(static_cast<std::int64_t>(k));
      t.band_sampler.push_back(add_sampler(t, band_p));
    }
    t.dx.push_back(static_cast<std::int16_t>(all[k].x));
    t.dy.push_back(static_cast<std::int16_t>(all[k].y));
    t.dz.push_back(static_cast<std::int16_t>(all[k].z));
    const long double ratio = std::min(1.0L, p / band_p);
    t.thin.push_back(static_cast<std::uint64_t>(std::floor(ratio * kTwo63 + 0.5L)));
  }
  t.band_end.push_back(static_cast<std::int64_t>(all.size()));
}

}  // namespace

std::int32_t add_geometric_sampler(std::vector<std::uint64_t>& geometric, std::vector<GeometricSampler>& samplers,
                                   long double p) {
  constexpr int L = RandomNetworkTables::kLevelSize;
  GeometricSampler s;
  s.first = static_cast<std::int32_t>(geometric.size());
  if (p > 0) {
    const long double log_q = p >= 1 ? -std::numeric_limits<long double>::infinity() : std::log1p(-p);
    long double log_qk = log_q;  // log of q^(L^k)
    for (int k = 0; k < 8; ++k) {
      const long double none = -std::expm1(L * log_qk);  // 1 - q_k^L  (> 0)
      geometric.push_back(std::numeric_limits<std::uint64_t>::max());  // j = 0: d >= 0 always (unused)
      for (int j = 1; j < L; ++j) {
        // P(d_k >= j) = (q_k^j - q_k^L) / (1 - q_k^L)
        const long double tail = std::isinf(log_qk) ? 0.0L : std::exp(j * log_qk) * -std::expm1((L - j) * log_qk);
        geometric.push_back(to_fixed64(tail / none));
      }
      ++s.levels;
      log_qk *= L;
      if (!(log_qk > -64.0L * std::log(2.0L))) break;  // next digit is nonzero with probability < 2^-64
    }
  }
  samplers.push_back(s);
  return static_cast<std::int32_t>(samplers.size() - 1);
}

std::int64_t gaussian_lattice_side(std::int64_t cells) {
  auto b = static_cast<std::int64_t>(std::llround(std::cbrt(static_cast<double>(cells))));
  while (b * b * b < cells) ++b;
  while (b > 1 && (b - 1) * (b - 1) * (b - 1) >= cells) --b;
  return b;
}

std::uint64_t RandomNetworkTables::table_bytes() const {
  return geometric.size() * 8 + samplers.size() * sizeof(GeometricSampler) + dx.size() * (3 * 2 + 8) +
         band_begin.size() * (8 + 8 + 4);
}

RandomNetworkTables make_random_network_tables(const RandomNetworkSpec& spec) {
  check_spec(spec);
  RandomNetworkTables t;
  t.spec = spec;
  const long double n = static_cast<long double>(spec.cells);
  if (spec.kind == RandomNetworkSpec::Kind::Uniform) {
    if (spec.exact)
      t.exact_count = static_cast<std::int64_t>(spec.density);
    else  // N - 1 candidates (directed) or the N - 1 - i higher ids (symmetric): E[degree] = density either way
      t.uniform_sampler = add_sampler(t, static_cast<long double>(spec.density) / (n - 1));
  } else {
    make_gaussian(t);
  }
  t.expected_junctions = static_cast<double>(spec.density * n);
  t.junction_bound = spec.exact ? spec.cells * t.exact_count
                                : static_cast<std::int64_t>(std::ceil(t.expected_junctions +
                                                                      6 * std::sqrt(t.expected_junctions) + 64));
  if (!spec.constant_conductance()) {
    int ex = 0;
    std::frexp(spec.g_high, &ex);  // g_high < 2^ex
    const int e = 53 - ex;         // high * 2^e <= 2^53: every value on the grid is an exact double
    t.g_low_fx = static_cast<std::uint64_t>(std::ceil(std::ldexp(spec.g_low, e)));
    t.g_span_fx = static_cast<std::uint64_t>(std::ceil(std::ldexp(spec.g_high, e))) - t.g_low_fx;
    t.g_scale = std::ldexp(1.0, -e);
    if (t.g_span_fx == 0) t.g_span_fx = 1;
  }
  return t;
}

}  // namespace kbrain
