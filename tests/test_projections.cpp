// Population/projection networks (spiking/projection_generation.hpp): on every backend the same synapses as Serial,
// bit for bit; each rule's exact counts or statistical bounds; autapses only where allowed; weights within their
// bounds with the distribution's moments; delays rounded to steps as NEST does (PD14's mean delays in steps).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "spiking/distribution.hpp"
#include "spiking/poisson_drive.hpp"
#include "spiking/projection_generation.hpp"
#include "tests/backend_types.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::spiking;

DistRule normal(double mean, double std, double min, double max, int bound) {
  DistRule d;
  d.kind = DistRule::Normal;
  d.a = mean;
  d.b = std;
  d.min = min;
  d.max = max;
  d.bound = bound;
  return d;
}

ProjectionSpec projection(int source, int target, ConnectionRule rule, std::int64_t count, double p = 0) {
  ProjectionSpec s;
  s.name = std::to_string(source) + "->" + std::to_string(target);
  s.source = source;
  s.target = target;
  s.rule = rule;
  s.count = count;
  s.probability = p;
  s.weight = normal(2.0, 0.2, 0.0, INFINITY, DistRule::Redraw);
  s.delay_ms = normal(1.5, 0.75, 0.05, INFINITY, DistRule::Redraw);
  return s;
}

// Six populations, one projection per (source, target) pair, so that a synapse's pair names its projection.
ProjectionNetwork network() {
  ProjectionNetwork n;
  n.seed = 7;
  n.dt_ms = 0.1;
  const std::int64_t sizes[] = {300, 120, 90, 90, 200, 150};
  std::int64_t first = 0;
  for (int k = 0; k < 6; ++k) {
    n.populations.push_back({"p" + std::to_string(k), first, sizes[k], 0});
    first += sizes[k];
  }
  n.projections.push_back(projection(0, 0, ConnectionRule::FixedTotalNumber, 9000));
  n.projections.back().autapses = false;
  n.projections.push_back(projection(0, 1, ConnectionRule::FixedTotalNumber, 4000));
  ProjectionSpec inh = projection(1, 0, ConnectionRule::PairwiseBernoulli, 0, 0.1);
  inh.weight = normal(-8.0, 0.8, -INFINITY, 0.0, DistRule::Redraw);
  inh.delay_ms = normal(0.75, 0.375, 0.05, INFINITY, DistRule::Redraw);
  inh.receptor = 1;
  n.projections.push_back(inh);
  n.projections.push_back(projection(1, 1, ConnectionRule::PairwiseBernoulli, 0, 0.2));
  n.projections.back().autapses = false;
  n.projections.push_back(projection(0, 4, ConnectionRule::FixedIndegree, 25));
  n.projections.push_back(projection(4, 5, ConnectionRule::FixedOutdegree, 12));
  n.projections.push_back(projection(2, 3, ConnectionRule::OneToOne, 0));
  ProjectionSpec all = projection(3, 2, ConnectionRule::AllToAll, 0);
  all.weight = DistRule::constant(0.5);
  all.delay_ms = DistRule::constant(0.3);
  n.projections.push_back(all);
  return n;
}

template <class T, class Mem>
std::vector<T> host_copy(const Kokkos::View<const T*, Mem>& v) {
  std::vector<T> h(v.extent(0));
  Kokkos::deep_copy(Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(h.data(), h.size()), v);
  return h;
}

struct Synapse {
  std::int64_t source, target;
  double weight;
  int delay, receptor;
};

template <class Mem>
std::vector<Synapse> synapses_of(const GeneratedSynapses<Mem>& g) {
  const auto target = host_copy(g.csr.target);
  const auto weight = host_copy(g.csr.weight);
  const auto dr = host_copy(g.csr.delay_receptor);
  std::vector<Synapse> out;
  for (std::size_t p = 0; p + 1 < g.offsets.size(); ++p)
    for (std::int64_t k = g.offsets[p]; k < g.offsets[p + 1]; ++k) {
      const int r = dr[k] & 1;
      out.push_back({std::int64_t(p), target[k], double(weight[k]) / g.csr.scale[r], dr[k] >> 1, r});
    }
  return out;
}

int population_of(const ProjectionNetwork& n, std::int64_t i) {
  for (std::size_t k = 0; k < n.populations.size(); ++k)
    if (i >= n.populations[k].first && i < n.populations[k].first + n.populations[k].size) return int(k);
  return -1;
}

}  // namespace

TEST_SUITE("projections") {
  TEST_CASE_TEMPLATE_DEFINE("generated on the backend: Serial's synapses bit for bit, each rule's counts", Backend,
                            same_everywhere) {
    using Exec = typename Backend::execution_space;
    const ProjectionNetwork net = network();
    const auto got = generate_projection_synapses<Exec>(net);
    const auto serial = generate_projection_synapses<Kokkos::Serial>(net);
    CHECK(got.offsets == serial.offsets);
    CHECK(host_copy(got.csr.target) == host_copy(serial.csr.target));
    CHECK(host_copy(got.csr.weight) == host_copy(serial.csr.weight));
    CHECK(host_copy(got.csr.delay_receptor) == host_copy(serial.csr.delay_receptor));
    CHECK(got.csr.scale[0] == serial.csr.scale[0]);
    CHECK(got.csr.max_delay == serial.csr.max_delay);

    std::map<std::pair<int, int>, std::int64_t> count;
    std::vector<std::int64_t> in_degree(static_cast<std::size_t>(net.neurons()), 0);
    std::vector<std::int64_t> out_degree(static_cast<std::size_t>(net.neurons()), 0);
    std::int64_t autapses_forbidden = 0, autapses_allowed = 0, wrong_sign = 0, short_delay = 0;
    for (const Synapse& s : synapses_of(got)) {
      const int x = population_of(net, s.source), y = population_of(net, s.target);
      ++count[{x, y}];
      if (x == 4 && y == 5) ++out_degree[s.source];
      if (x == 0 && y == 4) ++in_degree[s.target];
      if (s.source == s.target) ++(x == 0 || x == 1 ? autapses_forbidden : autapses_allowed);
      if ((x == 1 && y == 0) ? s.weight > 0 : s.weight < 0) ++wrong_sign;
      if ((x == 1 && y == 0) != (s.receptor == 1)) ++wrong_sign;
      if (s.delay < 1) ++short_delay;
      if (x == 2 && y == 3) CHECK(s.target - net.populations[3].first == s.source - net.populations[2].first);
      if (x == 3 && y == 2) CHECK(s.delay == 3);  // 0.3 ms: 3 steps
    }
    CHECK(count[{0, 0}] == 9000);
    CHECK(count[{0, 1}] == 4000);
    CHECK(count[{0, 4}] == 200 * 25);
    CHECK(count[{4, 5}] == 200 * 12);
    CHECK(count[{2, 3}] == 90);
    CHECK(count[{3, 2}] == 90 * 90);
    for (std::int64_t i = net.populations[4].first; i < net.populations[4].first + 200; ++i) CHECK(out_degree[i] == 12);
    for (std::int64_t i = net.populations[4].first; i < net.populations[4].first + 200; ++i) CHECK(in_degree[i] == 25);
    // Bernoulli: 120 x 300 x 0.1 = 3600 expected (sd 57), and 120 x 119 x 0.2 = 2856 (sd 48), 5 sd each way
    CHECK(std::abs(double(count[{1, 0}]) - 3600.0) < 5 * 57.0);
    CHECK(std::abs(double(count[{1, 1}]) - 2856.0) < 5 * 48.0);
    CHECK(autapses_forbidden == 0);
    CHECK(wrong_sign == 0);
    CHECK(short_delay == 0);
  }
  TEST_CASE_TEMPLATE_APPLY(same_everywhere, KBRAIN_TEST_BACKENDS);

  TEST_CASE("fixed_total_number: multinomial row lengths, autapses and multapses kept where allowed") {
    ProjectionNetwork n;
    n.seed = 3;
    n.populations.push_back({"a", 0, 400, 0});
    n.projections.push_back(projection(0, 0, ConnectionRule::FixedTotalNumber, 200000));
    const auto g = generate_projection_synapses<Kokkos::DefaultHostExecutionSpace>(n);
    // row lengths: Multinomial(K, 1/N): mean 500, variance K (1/N)(1 - 1/N) = 498.75
    CHECK(g.offsets.back() == 200000);
    const double mean = double(g.offsets.back()) / 400.0;
    double var = 0;
    for (int i = 0; i < 400; ++i) var += std::pow(double(g.offsets[i + 1] - g.offsets[i]) - mean, 2) / 399.0;
    CHECK(var == doctest::Approx(498.75).epsilon(0.25));  // sample variance of 400 rows: sd about 7 %
    std::int64_t autapses = 0, multapses = 0;
    std::map<std::pair<std::int64_t, std::int64_t>, int> pairs;
    for (const Synapse& s : synapses_of(g)) {
      autapses += s.source == s.target;
      if (++pairs[{s.source, s.target}] == 2) ++multapses;
    }
    // expected autapses K/N = 500; pairs hit twice or more: about N^2 (1 - e^-l (1 + l)), l = K/N^2 = 1.25
    CHECK(std::abs(double(autapses) - 500.0) < 5 * std::sqrt(500.0));
    const double l = 1.25, want = 160000.0 * (1 - std::exp(-l) * (1 + l));
    CHECK(std::abs(double(multapses) - want) < 0.03 * want);
  }

  TEST_CASE("weights: normal moments, redraw within bounds, clamp, lognormal mean") {
    const std::uint64_t key = projection_key(5, Purpose::Weight, 0);
    const DistRule w = normal(87.8, 8.78, 0.0, INFINITY, DistRule::Redraw);
    double sum = 0, sum2 = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      const double x = w.at(key, std::uint64_t(i));
      sum += x;
      sum2 += x * x;
    }
    const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
    CHECK(std::abs(mean - 87.8) < 5 * 8.78 / std::sqrt(double(n)));
    CHECK(sd == doctest::Approx(8.78).epsilon(0.01));
    // a bound inside the bulk: redraw leaves nothing beyond it, clamp piles the tail on it
    const DistRule redraw = normal(0.0, 1.0, -0.5, INFINITY, DistRule::Redraw);
    DistRule clamp = redraw;
    clamp.bound = DistRule::Clip;
    int at_bound = 0, below = 0;
    for (int i = 0; i < 20000; ++i) {
      below += redraw.at(key, std::uint64_t(i)) < -0.5;
      at_bound += clamp.at(key, std::uint64_t(i)) == -0.5;
    }
    CHECK(below == 0);
    CHECK(std::abs(at_bound / 20000.0 - 0.3085) < 0.02);  // P(z < -0.5)
    DistRule ln;
    ln.kind = DistRule::Lognormal;
    ln.a = 0.1;
    ln.b = 0.3;
    double s = 0;
    for (int i = 0; i < n; ++i) s += ln.at(key, std::uint64_t(i));
    CHECK(s / n == doctest::Approx(ln.mean()).epsilon(0.005));
    CHECK(w.lowest() == doctest::Approx(87.8 - kNormalDrawBound * 8.78));  // above the bound 0: the draws' own
    CHECK(redraw.lowest() == -0.5);
    CHECK(w.highest() == doctest::Approx(87.8 + kNormalDrawBound * 8.78));
  }

  TEST_CASE("delays: NEST's rounding to steps gives PD14's mean delays (15.48 and 7.77 steps)") {
    const std::uint64_t key = projection_key(9, Purpose::Delay, 0);
    const DistRule e = normal(1.5, 0.75, 0.05, INFINITY, DistRule::Redraw);
    const DistRule i = normal(0.75, 0.375, 0.05, INFINITY, DistRule::Redraw);
    double se = 0, si = 0;
    int ones = 0;
    const int n = 400000;
    for (int k = 0; k < n; ++k) {
      const int de = delay_steps(e.at(key, std::uint64_t(k)), 0.1);
      se += de;
      si += delay_steps(i.at(key, std::uint64_t(k)), 0.1);
      ones += de == 1;
      CHECK_MESSAGE(de >= 1, "a redrawn delay of at least 0.05 ms rounds to one step or more");
    }
    CHECK(se / n == doctest::Approx(15.48).epsilon(0.002));
    CHECK(si / n == doctest::Approx(7.77).epsilon(0.002));
    CHECK(double(ones) / n == doctest::Approx(0.0096).epsilon(0.1));
    CHECK(delay_steps(0.149999, 0.1) == 1);
    CHECK(delay_steps(0.15, 0.1) == 2);  // half a step rounds up
    CHECK(delay_steps(0.05, 0.1) == 1);
  }

  TEST_CASE("checks: unknown population, probability outside [0, 1], multapses, sizes, short delays") {
    ProjectionNetwork n = network();
    CHECK_NOTHROW(check_projection_network(n));
    ProjectionNetwork bad = n;
    bad.projections[0].target = 9;
    CHECK_THROWS_WITH_AS(check_projection_network(bad), doctest::Contains("unknown population"), std::invalid_argument);
    bad = n;
    bad.projections[2].probability = 1.5;
    CHECK_THROWS_WITH_AS(check_projection_network(bad), doctest::Contains("outside [0, 1]"), std::invalid_argument);
    bad = n;
    bad.projections[0].multapses = false;
    bad.projections[0].count = 300 * 299 + 1;
    CHECK_THROWS_WITH_AS(check_projection_network(bad), doctest::Contains("only 89700 pairs"), std::invalid_argument);
    bad = n;
    bad.projections[6].target = 4;  // one_to_one 90 -> 200
    CHECK_THROWS_WITH_AS(check_projection_network(bad), doctest::Contains("equal sizes"), std::invalid_argument);
    bad = n;
    bad.projections[1].delay_ms = normal(1.5, 0.75, -INFINITY, INFINITY, DistRule::None);
    CHECK_THROWS_WITH_AS(check_projection_network(bad), doctest::Contains("below half a step"), std::invalid_argument);
    bad = n;
    bad.projections[1].weight.b = -1;
    CHECK_THROWS_WITH_AS(check_projection_network(bad), doctest::Contains("negative standard deviation"),
                         std::invalid_argument);
  }

  TEST_CASE("Poisson counts: the law of Poisson(lambda) for the rates PD14 drives with") {
    for (const double lambda : {0.05, 1.28, 2.32}) {
      CAPTURE(lambda);
      const double e = std::exp(-lambda);
      const int n = 200000;
      double sum = 0, sum2 = 0;
      int zeros = 0;
      for (int k = 0; k < n; ++k) {
        const int c = poisson_count(counter_uniform(17, 3, std::uint64_t(k)), lambda, e);
        sum += c;
        sum2 += double(c) * c;
        zeros += c == 0;
      }
      const double mean = sum / n, var = sum2 / n - mean * mean;
      CHECK(std::abs(mean - lambda) < 5 * std::sqrt(lambda / n));
      CHECK(var == doctest::Approx(lambda).epsilon(0.03));
      CHECK(std::abs(double(zeros) / n - e) < 5 * std::sqrt(e * (1 - e) / n));
    }
  }
}
