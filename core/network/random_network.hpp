#pragma once
// Random gap-junction networks (`uniform`, `gaussian3d`): the specification and the host-side tables that make
// device generation exact and identical on every backend. Algorithms: docs/network-generators.md.
//
// Every random decision on the device is an integer comparison of a 64-bit counter-RNG draw against a threshold
// computed here, once, on the host (probabilities are stored as 64-bit fixed point). So the device never evaluates
// exp/log, and CPU and GPU (with or without FMA contraction) produce bit-identical networks.
// The kernels are in core/network/random_network_kernels.hpp, the driver in core/network/generate_network.hpp.
#include <cstdint>
#include <string>
#include <vector>

namespace kbrain {

struct RandomNetworkSpec {
  enum class Kind { Uniform, Gaussian3d };
  Kind kind = Kind::Uniform;
  std::int64_t cells = 0;
  double density = 10;     // mean incoming junctions per cell (mode exact: the exact count, an integer)
  bool exact = false;      // uniform only: exactly `density` partners per cell (else Bernoulli per candidate)
  double sigma = 1.0;      // gaussian3d: p ~ exp(-d^2 / (2 sigma^2)), d = lattice distance / scale
  double scale = 5.0;
  bool symmetric = false;  // every junction bidirectional with one conductance
  std::uint64_t seed = 1;
  double g_low = 0.04, g_high = 0.04;  // g_low == g_high => constant conductance; else uniform in [low, high)

  bool constant_conductance() const { return g_low == g_high; }
  const char* kind_name() const { return kind == Kind::Uniform ? "uniform" : "gaussian3d"; }
};

// Geometric skip sampler for a Bernoulli(p) sweep, as independent base-L digits (G = sum_k d_k L^k, exact for a
// geometric law): level k draws d_k in [0, L) from a table of L thresholds (thresholds[first + k*L + j] =
// 2^64 P(d_k >= j), decreasing in j; entry j = 0 unused).
struct GeometricSampler {
  std::int32_t first = 0;   // index of level 0 in RandomNetworkTables::geometric
  std::int32_t levels = 0;  // 0 => p == 0: never selects
};

struct RandomNetworkTables {
  static constexpr int kLevelSize = 256;  // L
  RandomNetworkSpec spec;
  std::vector<std::uint64_t> geometric;   // all samplers' levels
  std::vector<GeometricSampler> samplers;

  // uniform
  std::int32_t uniform_sampler = -1;  // Bernoulli sweep over candidates (mode bernoulli)
  std::int64_t exact_count = 0;       // mode exact

  // gaussian3d: lattice of side `side`, offsets sorted by distance, grouped in bands of one dominating
  // probability P_band (a Bernoulli(P_band) sweep over the band, then thinning with p(offset) / P_band).
  std::int64_t side = 0;
  double c = 0;                       // p(offset) = c * exp(-|offset|^2 / (2 (sigma scale)^2))
  std::vector<std::int16_t> dx, dy, dz;
  std::vector<std::uint64_t> thin;    // accept iff (u >> 1) < thin[k]; 2^63 = always
  std::vector<std::int64_t> band_begin, band_end;
  std::vector<std::int32_t> band_sampler;

  // conductance (range mode): g = double(low_fx + mulhi(span_fx, u)) * scale, exact on every backend
  std::uint64_t g_low_fx = 0, g_span_fx = 0;
  double g_scale = 0;

  // Expected number of incoming junctions (all cells) and a bound it exceeds with probability < 1e-9 (for the
  // memory planner).
  double expected_junctions = 0;
  std::int64_t junction_bound = 0;
  std::uint64_t table_bytes() const;
};

// Appends a geometric skip sampler for Bernoulli(p) sweeps (p in [0, 1]; p <= 0 never selects) to the tables;
// returns its index in `samplers`. Also used by the spiking-network generator (spiking/network_generation.hpp).
std::int32_t add_geometric_sampler(std::vector<std::uint64_t>& geometric, std::vector<GeometricSampler>& samplers,
                                   long double p);

// Validates `spec` (throws std::invalid_argument naming the parameter) and computes the tables.
RandomNetworkTables make_random_network_tables(const RandomNetworkSpec& spec);

// Side of the cubic lattice: ceil(cells^(1/3)) (exact integer arithmetic).
std::int64_t gaussian_lattice_side(std::int64_t cells);

}  // namespace kbrain
