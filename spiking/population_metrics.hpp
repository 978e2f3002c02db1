#pragma once
// The accuracy metrics of a spiking population as the PD14 community reference computes them
// (docs/specs: pd14.md §7; `kbrain stats`, docs/output-formats.md): over an observation window whose both ends are
// included, every neuron's rate, the ISI CV of every neuron with more than 2 spikes, and the Pearson correlation
// coefficients of the binned spike counts of a uniform sample of neurons; summaries of each, and the two-sample
// Kolmogorov–Smirnov distance that compares two runs' distributions. Host code, no model knowledge.
#include <array>
#include <cstdint>
#include <vector>

namespace kbrain::spiking {

// [t_min_ms, t_max_ms], both ends included.
struct Window {
  double t_min_ms = 0, t_max_ms = 0;
  bool contains(double t_ms) const { return t_ms >= t_min_ms && t_ms <= t_max_ms; }
  double length_s() const { return (t_max_ms - t_min_ms) / 1000.0; }
};

// One neuron's spike times in ms, ascending.
using SpikeTrain = std::vector<double>;

// Spikes/s of every train: its spikes inside the window over the window's length (silent trains give 0).
std::vector<double> window_rates(const std::vector<SpikeTrain>& trains, const Window& w);

// ISI CV of one train's spikes inside the window: population std (ddof 0) of the intervals over their mean;
// NaN where the window holds 2 spikes or fewer.
double isi_cv(const SpikeTrain& train, const Window& w);
// The CVs of the trains with more than 2 spikes in the window, in train order (the others contribute nothing).
std::vector<double> window_isi_cvs(const std::vector<SpikeTrain>& trains, const Window& w);

// The bin edges t_min + k * bin_ms, k = 0 … K, K = ceil((t_max − t_min) / bin_ms) (at least 1): the last edge is at
// or after t_max, as the reference's numpy.arange(t_min, t_max + bin, bin). A spike at time t falls in bin k where
// edge k <= t < edge k + 1; the last bin also holds its right edge (numpy.histogram's rule).
std::vector<double> bin_edges(const Window& w, double bin_ms);
// K, the number of bins, without the edges (a long window of fine bins would make them large).
std::int64_t bin_count(const Window& w, double bin_ms);

// Pearson correlation coefficients of the trains' spike counts in the window's bins: the upper triangle of the
// correlation matrix without its diagonal, row by row ((0,1), (0,2), …, (1,2), …). A pair with a train whose counts
// do not vary (a silent one) is NaN. Computed from exact integer sums of the sparse counts, so long windows of
// sparse trains cost memory per spike, not per bin.
std::vector<double> count_correlations(const std::vector<SpikeTrain>& trains, const Window& w, double bin_ms);

// k of the indices 0 … n − 1 uniformly without replacement (all of them when k >= n), ascending: a partial
// Fisher–Yates shuffle whose draw i is counter_random_u64(seed, stream, i) (core/rng/counter_rng.hpp, Philox4x32-10)
// reduced modulo the indices left (a bias below n / 2^64).
std::vector<std::int64_t> sample_indices(std::int64_t n, std::int64_t k, std::uint64_t seed, std::uint64_t stream);

// The quantiles of every summary, in order.
inline constexpr std::array<double, 5> kSummaryQuantiles = {0.05, 0.25, 0.50, 0.75, 0.95};

// Count, mean, population std (ddof 0) and quantiles (linear interpolation between order statistics, numpy's
// default) of the values that are not NaN; mean, std and quantiles are NaN when there are none.
struct Summary {
  std::int64_t count = 0;
  double mean = 0, stdev = 0;  // population std (ddof 0)
  std::array<double, kSummaryQuantiles.size()> quantiles{};
};
Summary summarize(const std::vector<double>& values);

// The two-sample Kolmogorov–Smirnov statistic D = sup_x |F_a(x) − F_b(x)| of the empirical distributions of the
// values that are not NaN; NaN when either side has none.
double ks_distance(const std::vector<double>& a, const std::vector<double>& b);

// What `kbrain stats` computes for one population.
struct MetricOptions {
  Window window;
  double bin_ms = 2;
  std::int64_t sample = 250;  // neurons for the correlations (fewer when the population is smaller)
  std::uint64_t seed = 12345;
};
struct PopulationMetrics {
  std::vector<double> rates;           // every neuron, in index order
  std::vector<double> cvs;             // neurons with more than 2 spikes in the window, in index order
  std::vector<double> ccs;             // the sample's pairs that are not NaN, in count_correlations' order
  std::vector<std::int64_t> sample;    // the sampled trains (indices into the population), ascending
};
// stream: the sampling's random stream (the population's position), so that populations draw independently and the
// same population of every run is sampled alike.
PopulationMetrics population_metrics(const std::vector<SpikeTrain>& trains, const MetricOptions& o,
                                     std::uint64_t stream);

}  // namespace kbrain::spiking
