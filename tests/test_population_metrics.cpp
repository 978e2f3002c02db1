// The population accuracy metrics of `kbrain stats` (spiking/population_metrics.hpp) on spike trains whose rates,
// CVs, correlations and KS distances are computed by hand here, and the run-folder reader's populations
// (experiments/program/run_folder_spikes.hpp). `kbrain stats` against NumPy: tests/reference/stats_reference.py; its
// refusals: tests/cli/stats_refusals.sh.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "core/config/experiment_config.hpp"
#include "core/recorders/trace_recorder.hpp"
#include "experiments/program/run_folder_spikes.hpp"
#include "spiking/population_metrics.hpp"
#include "tests/test_helpers.hpp"

namespace {

using kbrain::spiking::SpikeTrain;
using kbrain::spiking::Window;
namespace sp = kbrain::spiking;

// A run folder as `kbrain run` leaves it: run.json (with the given extra fields) and spikes.csv.
void write_run(const kbrain::test::TempDir& dir, const std::string& extra, const std::string& spikes,
               const std::string& complete = "true") {
  dir.write("run.json", "{\n  \"complete\": " + complete + extra + ",\n  \"dt_ms\": 0.5,\n  \"neurons\": 6,\n" +
                            "  \"steps\": 400\n}\n");
  dir.write("spikes.csv", "step,cell\n" + spikes);
}

}  // namespace

TEST_SUITE("population_metrics") {
  TEST_CASE("rates count the window's spikes, both ends included, over its length; silent neurons give 0") {
    const Window w{500, 1000};
    const std::vector<SpikeTrain> trains = {{}, {500, 700, 1000}, {499.9, 1000.1}, {100, 600}};
    const auto rates = sp::window_rates(trains, w);
    REQUIRE(rates.size() == 4);
    CHECK(rates[0] == 0);
    CHECK(rates[1] == doctest::Approx(3 / 0.5));
    CHECK(rates[2] == 0);
    CHECK(rates[3] == doctest::Approx(1 / 0.5));
  }

  TEST_CASE("ISI CV: population std of the intervals over their mean, only for more than 2 spikes in the window") {
    // Intervals 1, 2, 3: mean 2, std sqrt(2/3).
    CHECK(sp::isi_cv({10, 11, 13, 16}, Window{10, 16}) == doctest::Approx(std::sqrt(2.0 / 3.0) / 2));
    // The window keeps 11, 13, 16: intervals 2, 3, CV 0.5 / 2.5.
    CHECK(sp::isi_cv({10, 11, 13, 16}, Window{10.5, 20}) == doctest::Approx(0.2));
    // Regular spikes: CV 0.
    CHECK(sp::isi_cv({1, 2, 3, 4, 5}, Window{0, 10}) == doctest::Approx(0.0));
    // Two spikes in the window are not enough, whatever lies outside it.
    CHECK(std::isnan(sp::isi_cv({10, 11, 13, 16}, Window{12, 20})));
    const auto cvs = sp::window_isi_cvs({{1, 2}, {10, 11, 13, 16}, {}, {1, 2, 3, 4, 5}}, Window{0, 20});
    REQUIRE(cvs.size() == 2);
    CHECK(cvs[0] == doctest::Approx(std::sqrt(2.0 / 3.0) / 2));
    CHECK(cvs[1] == doctest::Approx(0.0));
  }

  TEST_CASE("bin edges start at t_min and reach t_max") {
    const auto even = sp::bin_edges(Window{500, 510}, 2);
    CHECK(even == std::vector<double>{500, 502, 504, 506, 508, 510});
    const auto uneven = sp::bin_edges(Window{0, 5}, 2);
    CHECK(uneven == std::vector<double>{0, 2, 4, 6});
  }

  TEST_CASE("count correlations: identical trains 1, anti-phased -1, a hand-computed pair, silent ones NaN") {
    const Window w{0, 8};  // bins [0,2) [2,4) [4,6) [6,8]
    const SpikeTrain even = {0.5, 4.5}, odd = {2.5, 6.5};
    auto cc = sp::count_correlations({even, even, odd, {}}, w, 2);
    // Order: (0,1) (0,2) (0,3) (1,2) (1,3) (2,3).
    REQUIRE(cc.size() == 6);
    CHECK(cc[0] == doctest::Approx(1.0));
    CHECK(cc[1] == doctest::Approx(-1.0));
    CHECK(std::isnan(cc[2]));
    CHECK(cc[3] == doctest::Approx(-1.0));
    CHECK(std::isnan(cc[4]));
    CHECK(std::isnan(cc[5]));
    // Counts (1,0,0,0) and (1,1,0,0): covariance 1/8, variances 3/16 and 1/4, r = 1/sqrt(3).
    cc = sp::count_correlations({{1.0}, {0.0, 3.0}}, w, 2);
    REQUIRE(cc.size() == 1);
    CHECK(cc[0] == doctest::Approx(1 / std::sqrt(3.0)));
    // Both ends are in the window: a spike at t_max is in the last bin (with 6.5), one at t_min in the first.
    cc = sp::count_correlations({{0.0, 8.0}, {1.5, 6.5}}, w, 2);
    CHECK(cc[0] == doctest::Approx(1.0));
    // Spikes just outside the window count nowhere: without them the first train's counts equal the second's.
    cc = sp::count_correlations({{-0.1, 0.0, 8.0, 8.1}, {1.5, 6.5}}, w, 2);
    CHECK(cc[0] == doctest::Approx(1.0));
    // Two spikes in one bin count 2: (2,0,0,0) against (1,0,0,0) is still 1, against (1,1,0,0) 1/sqrt(3).
    cc = sp::count_correlations({{0.1, 0.2}, {1.0}, {0.0, 3.0}}, w, 2);
    CHECK(cc[0] == doctest::Approx(1.0));
    CHECK(cc[1] == doctest::Approx(1 / std::sqrt(3.0)));
  }

  TEST_CASE("the sample: k distinct indices ascending, repeatable, uniform over streams; all when k >= n") {
    const auto a = sp::sample_indices(100, 10, 12345, 3);
    CHECK(a == sp::sample_indices(100, 10, 12345, 3));
    CHECK(a != sp::sample_indices(100, 10, 12346, 3));
    CHECK(a != sp::sample_indices(100, 10, 12345, 4));
    REQUIRE(a.size() == 10);
    CHECK(std::set<std::int64_t>(a.begin(), a.end()).size() == 10);
    CHECK(std::is_sorted(a.begin(), a.end()));
    CHECK(a.front() >= 0);
    CHECK(a.back() < 100);
    CHECK(sp::sample_indices(5, 250, 1, 0) == std::vector<std::int64_t>{0, 1, 2, 3, 4});
    // 3 of 10 over 20000 streams: every index drawn 6000 times on average (binomial std 65; 5 std allowed).
    std::vector<int> hits(10, 0);
    for (std::uint64_t s = 0; s < 20000; ++s)
      for (std::int64_t i : sp::sample_indices(10, 3, 7, s)) ++hits[static_cast<std::size_t>(i)];
    for (int h : hits) CHECK(std::abs(h - 6000) < 325);
  }

  TEST_CASE("summaries: mean, population std and numpy's linear quantiles of the values that are not NaN") {
    const auto s = sp::summarize({4, std::nan(""), 2, 1, 3});
    CHECK(s.count == 4);
    CHECK(s.mean == doctest::Approx(2.5));
    CHECK(s.stdev == doctest::Approx(std::sqrt(1.25)));
    // Position (n - 1) q between the sorted values 1, 2, 3, 4.
    CHECK(s.quantiles[0] == doctest::Approx(1.15));
    CHECK(s.quantiles[1] == doctest::Approx(1.75));
    CHECK(s.quantiles[2] == doctest::Approx(2.5));
    CHECK(s.quantiles[3] == doctest::Approx(3.25));
    CHECK(s.quantiles[4] == doctest::Approx(3.85));
    const auto none = sp::summarize({std::nan("")});
    CHECK(none.count == 0);
    CHECK(std::isnan(none.mean));
    CHECK(std::isnan(none.quantiles[2]));
  }

  TEST_CASE("the two-sample KS distance of known samples") {
    CHECK(sp::ks_distance({1, 2, 3}, {4, 5, 6}) == doctest::Approx(1.0));
    CHECK(sp::ks_distance({1, 2, 3, 4}, {3, 4, 5, 6}) == doctest::Approx(0.5));
    CHECK(sp::ks_distance({3, 1, 2}, {1, 2, 3}) == doctest::Approx(0.0));
    // Ties across the samples: at 1, F_a = 2/3 and F_b = 1/3.
    CHECK(sp::ks_distance({1, 1, 2}, {1, 2, 2}) == doctest::Approx(1.0 / 3));
    // Unequal sizes: at 1, 1/2 against 1/4; at 2, 1 against 1/4.
    CHECK(sp::ks_distance({1, 2}, {1, 3, 4, 5}) == doctest::Approx(0.75));
    CHECK(sp::ks_distance({1, std::nan(""), 2}, {1, 2}) == doctest::Approx(0.0));
    CHECK(std::isnan(sp::ks_distance({}, {1})));
  }

  TEST_CASE("population_metrics: every rate, the CVs of neurons with > 2 spikes, the sample's finite CCs") {
    sp::MetricOptions o;
    o.window = Window{0, 8};
    o.bin_ms = 2;
    o.sample = 3;
    const std::vector<SpikeTrain> trains = {{0.5, 4.5}, {}, {2.5, 6.5}, {1, 2, 4}};
    const auto m = sp::population_metrics(trains, o, 0);
    CHECK(m.rates.size() == 4);
    REQUIRE(m.cvs.size() == 1);
    CHECK(m.cvs[0] == doctest::Approx(0.5 / 1.5));
    REQUIRE(m.sample.size() == 3);
    // 3 pairs of the sample, less those with the silent neuron 1 where it was drawn.
    const bool silent_drawn = std::count(m.sample.begin(), m.sample.end(), 1) == 1;
    CHECK(m.ccs.size() == (silent_drawn ? 1u : 3u));
  }

  TEST_CASE("a run folder: populations from run.json, else one population 'all'; spikes to their trains") {
    kbrain::test::TempDir dir("stats_run");
    const std::string pops =
        ",\n  \"populations\": \"exc,inh\",\n  \"first_exc\": 0,\n  \"first_inh\": 4,\n  \"neurons_exc\": 4,\n"
        "  \"neurons_inh\": 2";
    write_run(dir, pops, "2,5\n4,1\n10,5\n");
    auto run = kbrain::read_run_folder_spikes(dir.path);
    CHECK(run.end_ms() == doctest::Approx(200));
    REQUIRE(run.populations.size() == 2);
    CHECK(run.populations[0].name == "exc");
    CHECK(run.populations[1].name == "inh");
    REQUIRE(run.populations[1].trains.size() == 2);
    CHECK(run.populations[1].trains[1] == SpikeTrain{1.0, 5.0});
    CHECK(run.populations[0].trains[1] == SpikeTrain{2.0});

    write_run(dir, "", "2,5\n");
    run = kbrain::read_run_folder_spikes(dir.path);
    REQUIRE(run.populations.size() == 1);
    CHECK(run.populations[0].name == "all");
    CHECK(run.populations[0].size == 6);
    CHECK(run.populations[0].trains[5] == SpikeTrain{1.0});

    const auto refusal = [&](const std::string& extra, const std::string& spikes, const std::string& complete) {
      write_run(dir, extra, spikes, complete);
      try {
        kbrain::read_run_folder_spikes(dir.path);
      } catch (const kbrain::ConfigError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK(kbrain::test::contains(refusal("", "1,6\n", "true"), "spikes.csv:2: neuron 6"));
    CHECK(kbrain::test::contains(refusal("", "1,2\n1;3\n", "true"), "spikes.csv:3:"));
    CHECK(kbrain::test::contains(refusal("", "", "false"), "did not complete"));
    CHECK(kbrain::test::contains(refusal(",\n  \"populations\": \"a\",\n  \"first_a\": 0", "", "true"),
                                 "\"neurons_a\""));
    CHECK(kbrain::test::contains(
        refusal(",\n  \"populations\": \"a,b\",\n  \"first_a\": 0,\n  \"first_b\": 2,\n  \"neurons_a\": 3,\n"
                "  \"neurons_b\": 2",
                "", "true"),
        "overlap"));
  }

  TEST_CASE("a run folder's spikes.kbs and spikes.h5 give the trains spikes.csv gives") {
    kbrain::test::TempDir dir("stats_formats");
    const std::vector<std::pair<std::int64_t, std::int64_t>> events = {{2, 5}, {4, 1}, {4, 5}, {10, 5}};
    write_run(dir, "", "2,5\n4,1\n4,5\n10,5\n");
    const auto from_csv = kbrain::read_run_folder_spikes(dir.path);
    CHECK(from_csv.spike_file == "spikes.csv");
    std::filesystem::remove(dir.path / "spikes.csv");
    const bool sonata = kbrain::sonata_spikes_available();
    {
      auto files = kbrain::open_spike_files(dir.path, false, true, sonata, "made_up", 0.5);
      files.record(events);
      files.close();
    }
    const auto from_kbs = kbrain::read_run_folder_spikes(dir.path);
    CHECK(from_kbs.spike_file == "spikes.kbs");
    CHECK(from_kbs.populations[0].trains == from_csv.populations[0].trains);
    if (!sonata) return;
    std::filesystem::remove(dir.path / "spikes.kbs");
    const auto from_h5 = kbrain::read_run_folder_spikes(dir.path);
    CHECK(from_h5.spike_file == "spikes.h5");
    CHECK(from_h5.populations[0].trains == from_csv.populations[0].trains);
  }
}
