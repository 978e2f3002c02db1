#pragma once
// Shared by the generator tests (test_generators.cpp, test_generator_kernels.cpp): specs covering every code path,
// the structural invariants of a generated CSR, and an independent expectation of the Gaussian distance law.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/registry.hpp"
#include "backends/serial/serial_backend.hpp"
#include "core/network/generate_network.hpp"
#include "core/config/experiment_config.hpp"
#include "core/network/random_network.hpp"
#include "models/olive/drivers/io_memory_plan.hpp"
#include "tests/backend_types.hpp"

namespace kbrain::generator_test {

using kbrain::GapNetwork;
using kbrain::RandomNetworkSpec;
using Kind = RandomNetworkSpec::Kind;

inline RandomNetworkSpec uniform_spec(std::int64_t cells, double density, bool exact, bool symmetric) {
  RandomNetworkSpec s;
  s.kind = Kind::Uniform;
  s.cells = cells;
  s.density = density;
  s.exact = exact;
  s.symmetric = symmetric;
  s.seed = 12345;
  return s;
}

inline RandomNetworkSpec gaussian_spec(std::int64_t cells, double density, double sigma, double scale, bool symmetric) {
  RandomNetworkSpec s;
  s.kind = Kind::Gaussian3d;
  s.cells = cells;
  s.density = density;
  s.sigma = sigma;
  s.scale = scale;
  s.symmetric = symmetric;
  s.seed = 777;
  return s;
}

inline RandomNetworkSpec with_range(RandomNetworkSpec s) {
  s.g_low = 0.01;
  s.g_high = 0.05;
  return s;
}

template <class Backend, class Real = double>
inline GapNetwork generate(const RandomNetworkSpec& spec) {
  const auto tables = kbrain::make_random_network_tables(spec);
  return kbrain::generate_network<typename Backend::execution_space, Real, typename Backend::memory_space>(tables)
      .to_host();
}

// Specs covering every code path (directed / symmetric, constant / range, exact / Bernoulli, both kinds).
inline std::vector<RandomNetworkSpec> all_specs() {
  return {uniform_spec(3001, 12, false, false), with_range(uniform_spec(3001, 12, false, false)),
          uniform_spec(2000, 25, true, false),  with_range(uniform_spec(500, 499, true, false)),
          with_range(uniform_spec(2500, 9, false, true)),
          gaussian_spec(4100, 30, 1.0, 2.0, false), with_range(gaussian_spec(4100, 30, 1.0, 2.0, true)),
          with_range(gaussian_spec(3000, 8, 1.0, 5.0, false))};
}

inline std::string name_of(const RandomNetworkSpec& s) {
  return std::string(s.kind_name()) + " N=" + std::to_string(s.cells) + " d=" + std::to_string(s.density) +
         (s.exact ? " exact" : "") + (s.symmetric ? " symmetric" : "") +
         (s.constant_conductance() ? "" : " g-range");
}

inline void check_structure(const GapNetwork& net, const RandomNetworkSpec& spec) {
  REQUIRE(net.cells == spec.cells);
  REQUIRE(net.offsets.size() == static_cast<std::size_t>(spec.cells) + 1);
  REQUIRE(net.offsets.front() == 0);
  REQUIRE(net.offsets.back() == static_cast<std::int64_t>(net.sources.size()));
  if (spec.constant_conductance()) CHECK(net.conductance.empty());
  else REQUIRE(net.conductance.size() == net.sources.size());
  std::int64_t bad_order = 0, self = 0, out_of_range = 0, bad_g = 0;
  for (std::int64_t i = 0; i < net.cells; ++i)
    for (std::int64_t k = net.offsets[i]; k < net.offsets[i + 1]; ++k) {
      const std::int32_t s = net.sources[k];
      if (s == i) ++self;
      if (s < 0 || s >= net.cells) ++out_of_range;
      if (k > net.offsets[i] && !(net.sources[k - 1] < s)) ++bad_order;  // ascending => no duplicates
      const double g = net.g(k);
      if (spec.constant_conductance() ? g != spec.g_low : !(g >= spec.g_low && g < spec.g_high)) ++bad_g;
    }
  CHECK(self == 0);
  CHECK(out_of_range == 0);
  CHECK(bad_order == 0);
  CHECK(bad_g == 0);
}

inline double mean_degree(const GapNetwork& net) { return double(net.junctions()) / double(net.cells); }

// Chi-square critical value for `dof` degrees of freedom at upper-tail probability 0.001 (Wilson-Hilferty).
inline double chi2_critical_0001(int dof) {
  const double k = dof, z = 3.0902;
  return k * std::pow(1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k)), 3);
}

// Expected junction counts per distance bin (half lattice units) of a directed gaussian3d network, computed
// independently of the generator: brute force over every cell and every offset within the generator's reach.
inline std::vector<double> gaussian_expected_bins(std::int64_t cells, double density, double width, int bins) {
  const std::int64_t b = kbrain::gaussian_lattice_side(cells);
  const double r2_max = 2 * width * width * 36 * std::log(2.0);
  const int reach = static_cast<int>(std::min<double>(b - 1, std::sqrt(r2_max)));
  std::vector<double> mass(bins, 0.0);
  double total = 0;
  for (std::int64_t i = 0; i < cells; ++i) {
    const std::int64_t x = i / (b * b), y = (i % (b * b)) / b, z = i % b;
    for (int dx = -reach; dx <= reach; ++dx)
      for (int dy = -reach; dy <= reach; ++dy)
        for (int dz = -reach; dz <= reach; ++dz) {
          const double r2 = double(dx) * dx + double(dy) * dy + double(dz) * dz;
          if (r2 == 0 || r2 > r2_max) continue;
          const std::int64_t nx = x + dx, ny = y + dy, nz = z + dz;
          if (nx < 0 || ny < 0 || nz < 0 || nx >= b || ny >= b || nz >= b || nx * b * b + ny * b + nz >= cells)
            continue;
          const double w = std::exp(-r2 / (2 * width * width));
          total += w;
          mass[std::min(bins - 1, static_cast<int>(std::sqrt(r2) * 2))] += w;
        }
  }
  for (double& m : mass) m *= density * double(cells) / total;  // c = density N / sum of weights
  return mass;
}

inline std::vector<double> gaussian_observed_bins(const GapNetwork& net, int bins) {
  const std::int64_t b = kbrain::gaussian_lattice_side(net.cells);
  std::vector<double> count(bins, 0.0);
  for (std::int64_t i = 0; i < net.cells; ++i)
    for (std::int64_t k = net.offsets[i]; k < net.offsets[i + 1]; ++k) {
      const std::int64_t j = net.sources[k];
      const double dx = double(i / (b * b) - j / (b * b)), dy = double((i % (b * b)) / b - (j % (b * b)) / b),
                   dz = double(i % b - j % b);
      count[std::min(bins - 1, static_cast<int>(std::sqrt(dx * dx + dy * dy + dz * dz) * 2))] += 1;
    }
  return count;
}

// Chi-square of observed against expected, merging bins with expected < 5 into their neighbour; returns
// (statistic, degrees of freedom).
inline std::pair<double, int> chi_square(const std::vector<double>& observed, const std::vector<double>& expected) {
  double chi2 = 0, o = 0, e = 0;
  int dof = 0;
  for (std::size_t k = 0; k < expected.size(); ++k) {
    o += observed[k];
    e += expected[k];
    if (e >= 5 || k + 1 == expected.size()) {
      if (e > 0) {
        chi2 += (o - e) * (o - e) / e;
        ++dof;
      }
      o = e = 0;
    }
  }
  return {chi2, dof};
}

inline std::vector<std::int32_t> sources_of(const GapNetwork& net, std::int64_t cell) {
  return {net.sources.begin() + net.offsets[cell], net.sources.begin() + net.offsets[cell + 1]};
}

}  // namespace kbrain::generator_test
