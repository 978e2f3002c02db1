// The population accuracy metrics (population_metrics.hpp). The correlations use the sparse binned counts: for
// counts x, y over K bins, r = (K Σxy − Σx Σy) / sqrt((K Σx² − (Σx)²)(K Σy² − (Σy)²)), every sum an exact
// integer, so the only rounding is in the final division and root, and a 15-minute window of 2 ms bins needs no
// dense count matrix.
#include "spiking/population_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "core/rng/counter_rng.hpp"

namespace kbrain::spiking {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// K Σxy and the like exceed 64 bits only for absurd windows; 128 bits make the integer sums exact regardless.
__extension__ using Wide = __int128;

// The part of an ascending train inside the window.
std::pair<SpikeTrain::const_iterator, SpikeTrain::const_iterator> in_window(const SpikeTrain& train, const Window& w) {
  return {std::lower_bound(train.begin(), train.end(), w.t_min_ms),
          std::upper_bound(train.begin(), train.end(), w.t_max_ms)};
}

// A train's non-zero bin counts (bin, count), bins ascending, and its sums Σx and Σx².
struct SparseCounts {
  std::vector<std::pair<std::int64_t, std::int64_t>> bins;
  std::int64_t sum = 0, sum_sq = 0;
};

double edge(const Window& w, double bin_ms, std::int64_t k) { return w.t_min_ms + bin_ms * static_cast<double>(k); }

// The bin of a time t inside the window: the k with edge k <= t < edge k + 1, the last bin also taking its right
// edge; from the quotient, corrected where it rounded across an edge, so that it equals a search of the edges.
std::int64_t bin_of(double t, const Window& w, double bin_ms, std::int64_t bins) {
  auto k = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor((t - w.t_min_ms) / bin_ms)), 0, bins - 1);
  while (k > 0 && edge(w, bin_ms, k) > t) --k;
  while (k + 1 < bins && edge(w, bin_ms, k + 1) <= t) ++k;
  return k;
}

SparseCounts sparse_counts(const SpikeTrain& train, const Window& w, double bin_ms, std::int64_t bins) {
  SparseCounts c;
  const auto [begin, end] = in_window(train, w);
  for (auto it = begin; it != end; ++it) {
    const std::int64_t bin = bin_of(*it, w, bin_ms, bins);
    if (!c.bins.empty() && c.bins.back().first == bin)
      ++c.bins.back().second;
    else
      c.bins.emplace_back(bin, 1);
  }
  for (const auto& [bin, n] : c.bins) {
    c.sum += n;
    c.sum_sq += n * n;
  }
  return c;
}

// Σ x_b y_b over the bins both trains have spikes in.
std::int64_t dot(const SparseCounts& a, const SparseCounts& b) {
  std::int64_t s = 0;
  auto i = a.bins.begin(), j = b.bins.begin();
  while (i != a.bins.end() && j != b.bins.end()) {
    if (i->first < j->first) {
      ++i;
    } else if (j->first < i->first) {
      ++j;
    } else {
      s += i->second * j->second;
      ++i;
      ++j;
    }
  }
  return s;
}

std::vector<double> without_nan(const std::vector<double>& values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (double v : values)
    if (!std::isnan(v)) out.push_back(v);
  return out;
}

}  // namespace

std::vector<double> window_rates(const std::vector<SpikeTrain>& trains, const Window& w) {
  std::vector<double> rates;
  rates.reserve(trains.size());
  for (const SpikeTrain& t : trains) {
    const auto [begin, end] = in_window(t, w);
    rates.push_back(static_cast<double>(end - begin) / w.length_s());
  }
  return rates;
}

double isi_cv(const SpikeTrain& train, const Window& w) {
  const auto [begin, end] = in_window(train, w);
  const auto spikes = end - begin;
  if (spikes <= 2) return kNaN;
  const auto n = static_cast<double>(spikes - 1);
  double mean = 0;
  for (auto it = begin + 1; it != end; ++it) mean += *it - *(it - 1);
  mean /= n;
  double var = 0;
  for (auto it = begin + 1; it != end; ++it) var += (*it - *(it - 1) - mean) * (*it - *(it - 1) - mean);
  return std::sqrt(var / n) / mean;
}

std::vector<double> window_isi_cvs(const std::vector<SpikeTrain>& trains, const Window& w) {
  std::vector<double> cvs;
  for (const SpikeTrain& t : trains) {
    const double cv = isi_cv(t, w);
    if (!std::isnan(cv)) cvs.push_back(cv);
  }
  return cvs;
}

std::int64_t bin_count(const Window& w, double bin_ms) {
  auto bins = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil((w.t_max_ms - w.t_min_ms) / bin_ms)));
  // The quotient may round down past a whole number: one bin more, until the last edge reaches t_max.
  while (edge(w, bin_ms, bins) < w.t_max_ms) ++bins;
  return bins;
}

std::vector<double> bin_edges(const Window& w, double bin_ms) {
  std::vector<double> edges(static_cast<std::size_t>(bin_count(w, bin_ms)) + 1);
  for (std::size_t k = 0; k < edges.size(); ++k) edges[k] = edge(w, bin_ms, static_cast<std::int64_t>(k));
  return edges;
}

std::vector<double> count_correlations(const std::vector<SpikeTrain>& trains, const Window& w, double bin_ms) {
  const std::int64_t k = bin_count(w, bin_ms);
  const auto bins = static_cast<Wide>(k);
  std::vector<SparseCounts> counts;
  counts.reserve(trains.size());
  for (const SpikeTrain& t : trains) counts.push_back(sparse_counts(t, w, bin_ms, k));
  // K Σx² − (Σx)²: K² times the variance; 0 for a train whose counts do not vary.
  std::vector<Wide> spread(counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i)
    spread[i] = bins * counts[i].sum_sq - static_cast<Wide>(counts[i].sum) * counts[i].sum;
  std::vector<double> ccs;
  ccs.reserve(trains.size() * (trains.size() - std::min<std::size_t>(1, trains.size())) / 2);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    for (std::size_t j = i + 1; j < counts.size(); ++j) {
      if (spread[i] == 0 || spread[j] == 0) {
        ccs.push_back(kNaN);
        continue;
      }
      const Wide num = bins * dot(counts[i], counts[j]) - static_cast<Wide>(counts[i].sum) * counts[j].sum;
      const long double r = static_cast<long double>(num) /
                            std::sqrt(static_cast<long double>(spread[i]) * static_cast<long double>(spread[j]));
      ccs.push_back(std::clamp(static_cast<double>(r), -1.0, 1.0));
    }
  }
  return ccs;
}

std::vector<std::int64_t> sample_indices(std::int64_t n, std::int64_t k, std::uint64_t seed, std::uint64_t stream) {
  std::vector<std::int64_t> idx(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  std::iota(idx.begin(), idx.end(), std::int64_t{0});
  if (k >= n) return idx;
  for (std::int64_t i = 0; i < k; ++i) {
    const auto left = static_cast<std::uint64_t>(n - i);
    const auto j = i + static_cast<std::int64_t>(counter_random_u64(seed, stream, static_cast<std::uint64_t>(i)) % left);
    std::swap(idx[static_cast<std::size_t>(i)], idx[static_cast<std::size_t>(j)]);
  }
  idx.resize(static_cast<std::size_t>(std::max<std::int64_t>(k, 0)));
  std::sort(idx.begin(), idx.end());
  return idx;
}

Summary summarize(const std::vector<double>& values) {
  std::vector<double> v = without_nan(values);
  std::sort(v.begin(), v.end());
  Summary s;
  s.count = static_cast<std::int64_t>(v.size());
  if (v.empty()) {
    s.mean = s.stdev = kNaN;
    s.quantiles.fill(kNaN);
    return s;
  }
  const auto n = static_cast<double>(v.size());
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
  double var = 0;
  for (double x : v) var += (x - s.mean) * (x - s.mean);
  s.stdev = std::sqrt(var / n);
  for (std::size_t q = 0; q < kSummaryQuantiles.size(); ++q) {
    const double h = (n - 1) * kSummaryQuantiles[q];
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    s.quantiles[q] = v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
  }
  return s;
}

double ks_distance(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> x = without_nan(a), y = without_nan(b);
  if (x.empty() || y.empty()) return kNaN;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  const auto nx = static_cast<double>(x.size()), ny = static_cast<double>(y.size());
  std::size_t i = 0, j = 0;
  double d = 0;
  // Both empirical distributions stepped past every value up to the smaller next one (ties on both sides at once).
  while (i < x.size() && j < y.size()) {
    const double v = std::min(x[i], y[j]);
    while (i < x.size() && x[i] <= v) ++i;
    while (j < y.size() && y[j] <= v) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / nx - static_cast<double>(j) / ny));
  }
  return d;
}

PopulationMetrics population_metrics(const std::vector<SpikeTrain>& trains, const MetricOptions& o,
                                     std::uint64_t stream) {
  PopulationMetrics m;
  m.rates = window_rates(trains, o.window);
  m.cvs = window_isi_cvs(trains, o.window);
  const auto n = static_cast<std::int64_t>(trains.size());
  m.sample = sample_indices(n, std::min(o.sample, n), o.seed, stream);
  std::vector<SpikeTrain> sampled;
  sampled.reserve(m.sample.size());
  for (std::int64_t i : m.sample) sampled.push_back(trains[static_cast<std::size_t>(i)]);
  m.ccs = without_nan(count_correlations(sampled, o.window, o.bin_ms));
  return m;
}

}  // namespace kbrain::spiking
