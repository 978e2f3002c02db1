// Galbraith 2010's neural decoder (models/galbraith_decoder/): the FFT interface against a direct DFT on every
// backend; the stimulus' RMS and band limit; the tuning formulas (one simulated neuron fires at r_max at full drive
// and r_min at zero drive); the PSC filter by FFT against the direct sum; whole pipelines through the runner that
// recover the signal at small sizes, agree across backends and between FFT and direct convolution; refusals that
// name the key.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "core/rng/counter_rng.hpp"
#include "models/galbraith_decoder/decoder_fft.hpp"
#include "models/galbraith_decoder/decoder_model.hpp"
#include "models/galbraith_decoder/decoder_signal.hpp"
#include "models/registry.hpp"
#include "models/runtime/run_dispatch.hpp"
#include "tests/backend_types.hpp"

namespace {

using namespace kbrain;
using namespace kbrain::galbraith;

// A small problem: 2 s of training, 1 s of test, 2 Hz band limit (so the test signal has bins below it).
std::string decoder_toml(const std::string& simulation = "", const std::string& population = "",
                         const std::string& stimulus = "") {
  return "name = \"d\"\n[model]\nkind = \"galbraith_decoder\"\n[simulation]\nsteps = 1\ndt = 0.25\n" + simulation +
         "[population]\n" + (population.find("neurons") == std::string::npos ? "neurons = 40\n" : "") + population + "[stimulus]\ntrain_s = 4\ntest_s = 1\n" +
         (stimulus.find("cutoff_hz") == std::string::npos ? "cutoff_hz = 3\n" : "") + stimulus;
}

}  // namespace

TEST_SUITE("galbraith_decoder") {
  TEST_CASE_TEMPLATE_DEFINE("FFT interface: forward against a direct DFT, inverse round trip, every backend", Backend,
                            decoder_fft) {
    using Exec = typename Backend::execution_space;
    for (const std::int64_t n : {64, 100}) {  // a power of two and not
      const std::int64_t batch = 3, K = n / 2 + 1;
      RealFft<Exec, double> fft(n, batch);
      typename RealFft<Exec, double>::RealRows in("in", batch, n);
      typename RealFft<Exec, double>::ComplexRows out("out", batch, K);
      auto h_in = Kokkos::create_mirror_view(in);
      for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t t = 0; t < n; ++t) h_in(b, t) = 2 * counter_uniform(3, std::uint64_t(b), std::uint64_t(t)) - 1;
      Kokkos::deep_copy(in, h_in);
      fft.forward(in, out);
      auto h_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      double worst = 0;
      for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t k = 0; k < K; ++k) {
          std::complex<double> want = 0;
          for (std::int64_t t = 0; t < n; ++t)
            want += h_in(b, t) * std::polar(1.0, -2 * kPi * double(k * t) / double(n));
          worst = std::max(worst, std::abs(want - std::complex<double>(h_out(b, k).real(), h_out(b, k).imag())));
        }
      CHECK(worst < 1e-10);
      typename RealFft<Exec, double>::RealRows back("back", batch, n);
      fft.inverse(out, back);
      auto h_back = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
      worst = 0;
      for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t t = 0; t < n; ++t) worst = std::max(worst, std::fabs(h_back(b, t) / double(n) - h_in(b, t)));
      CHECK(worst < 1e-12);
    }
    // float: the same within single precision.
    RealFft<Exec, float> f(32, 1);
    typename RealFft<Exec, float>::RealRows in("in", 1, 32);
    typename RealFft<Exec, float>::ComplexRows out("out", 1, 17);
    Kokkos::deep_copy(in, 1.0f);
    f.forward(in, out);
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    CHECK(h(0, 0).real() == doctest::Approx(32.0));
    CHECK(std::abs(h(0, 3).real()) + std::abs(h(0, 3).imag()) < 1e-5);
  }
  TEST_CASE_TEMPLATE_APPLY(decoder_fft, KBRAIN_TEST_BACKENDS);

  TEST_CASE("stimulus: RMS as asked, zero mean, no power above the cut-off") {
    const std::int64_t n = 20000;
    const double dt = 0.25e-3, cutoff = 5;
    const std::vector<double> x = band_limited_signal(n, dt, cutoff, 0.5, 7, 1000);
    double sum = 0, sq = 0;
    for (double v : x) sum += v, sq += v * v;
    CHECK(std::sqrt(sq / double(n)) == doctest::Approx(0.5).epsilon(1e-12));
    CHECK(std::fabs(sum / double(n)) < 1e-12);
    // Power by a direct DFT on a few bins below and above the cut-off (bin k is k / (n dt) Hz = k / 5 Hz).
    auto power = [&](std::int64_t k) {
      std::complex<double> s = 0;
      for (std::int64_t t = 0; t < n; ++t) s += x[std::size_t(t)] * std::polar(1.0, -2 * kPi * double(k * t) / double(n));
      return std::norm(s);
    };
    double below = 0, above = 0;
    for (std::int64_t k = 1; k <= 25; ++k) below += power(k);  // 0.2 ... 5 Hz
    for (std::int64_t k : {26, 27, 30, 50, 100, 1000, 5000}) above = std::max(above, power(k));
    CHECK(below > 0);
    CHECK(above < 1e-20 * below);
    // Another seed or stream: another signal.
    CHECK(band_limited_signal(n, dt, cutoff, 0.5, 8, 1000)[100] != x[100]);
  }

  TEST_CASE("tuning: one simulated neuron fires at r_max at full drive and r_min at zero drive") {
    const double dt = 0.25e-3;
    for (const auto& taus : std::vector<std::pair<double, double>>{{1e-3, 10e-3}, {2e-3, 20e-3}, {3e-3, 30e-3}}) {
      // Plain variables, not a structured binding: INFO captures them in a lambda, which C++17 clang refuses.
      const double tau_ref = taus.first, tau_rc = taus.second;
      const LifTuning tune = lif_tuning(100, 10, tau_ref, tau_rc);
      CHECK(lif_rate(tune.j_bias, tau_ref, tau_rc) == doctest::Approx(10).epsilon(1e-9));
      CHECK(lif_rate(tune.j_bias + tune.alpha, tau_ref, tau_rc) == doctest::Approx(100).epsilon(1e-9));
      for (const double drive : {0.0, 1.0}) {
        double v = 0, refractory = 0;
        const double j = tune.alpha * drive + tune.j_bias;
        const std::int64_t steps = 40000;  // 10 s
        std::int64_t spikes = 0;
        for (std::int64_t n = 0; n < steps; ++n) spikes += lif_step(v, refractory, j, dt, tau_rc, tau_ref) ? 1 : 0;
        const double want = drive > 0 ? 100 : 10;
        INFO("tau_ref ", tau_ref, " tau_rc ", tau_rc, " drive ", drive);
        CHECK(std::fabs(double(spikes) / 10.0 - want) <= 0.15);  // within about one spike in 10 s
      }
    }
  }

  TEST_CASE("PSC filter: taps, normalisation; Butterworth: unit DC gain") {
    const PscFilter f = psc_filter(5e-3, 0.25e-3, 5);
    CHECK(f.taps == 100);
    double sum = 0, h = f.norm;
    for (std::int64_t j = 0; j < f.taps; ++j, h *= f.a) sum += h;
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
    const Biquad b = butterworth_lowpass(5, 0.25e-3);
    CHECK((b.b0 + b.b1 + b.b2) / (1 + b.a1 + b.a2) == doctest::Approx(1.0).epsilon(1e-6));
  }

  TEST_CASE_TEMPLATE_DEFINE("whole pipeline: recovers the signal; SU better than MU; FFT = direct; agrees with serial",
                            Backend, decoder_runs) {
    const ExperimentConfig cfg = parse_model_experiment(decoder_toml(), "d.toml");
    RunRequest request;
    request.progress = false;
    const DecoderPlan su = make_decoder_plan(cfg, {0, 0, 0, "su"});
    request.probe_cells = GalbraithDecoderModel::probe_cells(su);
    const RunResult ref = run_on<GalbraithDecoderModel>(su, "serial", Precision::Double, request);
    MESSAGE("SU NRMSE ", ref.value("nrmse", 1), ", lag ", ref.value("lag_ms", -1), " ms");
    CHECK(ref.value("nrmse", 1) < 0.08);  // 40 neurons, 4 s of training
    CHECK(ref.value("lag_ms", -1) > 0);
    CHECK(ref.value("mean_rate_hz") > 5);
    for (const Precision prec : {Precision::Double, Precision::Float}) {
      const RunResult r = run_on<GalbraithDecoderModel>(su, Backend::name, prec, request);
      REQUIRE(r.probes.size() == ref.probes.size());
      double worst = 0;
      for (std::size_t k = 0; k < r.probes.size(); ++k) worst = std::max(worst, std::fabs(r.probes[k] - ref.probes[k]));
      INFO(Backend::name, " ", prec == Precision::Double ? "double" : "float");
      CHECK(worst < (prec == Precision::Double ? 1e-6 : 2e-2));
      CHECK(r.value("nrmse") == doctest::Approx(ref.value("nrmse")).epsilon(prec == Precision::Double ? 1e-6 : 5e-2));
      CHECK(r.value("gamma_s") >= 0);
    }
    // MU: 10 units of 4; still decodes, worse than SU.
    const DecoderPlan mu = make_decoder_plan(cfg, {0, 0, 0, "mu"});
    const RunResult rm = run_on<GalbraithDecoderModel>(mu, Backend::name, Precision::Double, request);
    MESSAGE("MU NRMSE ", rm.value("nrmse", 1));
    CHECK(rm.value("units") == 10);
    CHECK(rm.value("nrmse") < 0.15);
    CHECK(rm.value("nrmse") > ref.value("nrmse"));
    // Direct convolution and per-unit delays: the same problem, near the same answer.
    const ExperimentConfig cfg_direct = parse_model_experiment(decoder_toml("convolution = \"direct\"\n"), "d.toml");
    const RunResult rd = run_on<GalbraithDecoderModel>(make_decoder_plan(cfg_direct, {}), Backend::name,
                                                       Precision::Double, request);
    CHECK(rd.value("nrmse") == doctest::Approx(ref.value("nrmse")).epsilon(1e-6));
    const ExperimentConfig cfg_unit = parse_model_experiment(decoder_toml("delay = \"unit\"\n"), "d.toml");
    const RunResult ru = run_on<GalbraithDecoderModel>(make_decoder_plan(cfg_unit, {}), Backend::name,
                                                       Precision::Double, request);
    CHECK(ru.value("nrmse") < 0.1);
  }
  TEST_CASE_TEMPLATE_APPLY(decoder_runs, KBRAIN_TEST_BACKENDS);

  TEST_CASE("refusals name the key") {
    auto error_of = [](const std::string& toml) {
      try {
        const auto experiment = parse_model_experiment(toml, "bad.toml");
        make_decoder_plan(experiment, {});
      } catch (const ConfigError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    const std::string range = error_of(decoder_toml("", "tau_rc_min_ms = 30\ntau_rc_max_ms = 10\n"));
    CHECK(range.find("bad.toml") != std::string::npos);
    CHECK(range.find("population.tau_rc_max_ms") != std::string::npos);
    CHECK(error_of(decoder_toml("", "max_rate_hz = 500\ntau_ref_max_ms = 3\n")).find("population.max_rate_hz") !=
          std::string::npos);
    CHECK(error_of(decoder_toml("", "", "cutoff_hz = 3000\n")).find("stimulus.cutoff_hz") != std::string::npos);
    CHECK(error_of(decoder_toml("lowpass_hz = 3000\n")).find("simulation.lowpass_hz") != std::string::npos);
    CHECK(error_of(decoder_toml("", "noise_error = 0\n")).find("population.noise_error") != std::string::npos);
    CHECK(error_of(decoder_toml("trains = \"xx\"\n")).find("trains") != std::string::npos);
    CHECK(error_of(decoder_toml("", "neurons = 0\n")).find("population.neurons") != std::string::npos);
  }
}
