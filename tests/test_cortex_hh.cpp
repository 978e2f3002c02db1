// Wang 2012 cortical HH network (models/cortex_hh/): gating functions against hand values, LUT interpolation error,
// the numerical methods against each other (EAI, TPM), every backend against Serial, and a small network's rates.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backends/serial/serial_backend.hpp"
#include "core/config/experiment_config.hpp"
#include "models/registry.hpp"
#include "models/point/point_plan.hpp"
#include "models/cortex_hh/cortex_network.hpp"
#include "spiking/host_network.hpp"
#include "spiking/spike_accuracy.hpp"
#include "tests/backend_types.hpp"

namespace {

using namespace kbrain;

// A small cortex_hh network from TOML text (the config path the experiments use); `model_extra` goes into [model].
std::string network_toml(const std::string& model_extra, std::int64_t neurons = 400, std::int64_t in_degree = 40,
                         double w_exc = 0.05, double w_inh = 0.5, double input = 3.0) {
  return "name = \"t\"\n[model]\nkind = \"cortex_hh\"\n" + model_extra +
         "\n[simulation]\ndt = 0.02\nsteps = 10000\n[network]\ntype = \"fixed_in_degree\"\nneurons = " +
         std::to_string(neurons) + "\nin_degree = " + std::to_string(in_degree) +
         "\nw_exc = " + std::to_string(w_exc) + "\nw_inh = " + std::to_string(w_inh) +
         "\nseed = 3\n[[input]]\nkind = \"current\"\nfirst = 0\nlast = " + std::to_string(neurons / 5) +
         "\nmean = " + std::to_string(input) + "\n";
}

struct CortexRun {
  std::vector<std::pair<std::int64_t, std::int64_t>> spikes;
  std::vector<double> v;
  double dt = 0;
};

// log_capacity: events the device log holds (a small one makes the host drain it between replays).
template <class Backend, class Real, bool Replay = true>
CortexRun run_cortex(const std::string& toml, std::int64_t steps, std::int64_t log_capacity = 1 << 16,
                     bool* replayed = nullptr) {
  const ExperimentConfig cfg = parse_model_experiment(toml, "test.toml");
  const point::SpikingPlan plan = point::make_spiking_plan(cfg, PlanRequest{0, 0, steps});
  cortex::CortexHhSimulation<Backend, Real, Replay> sim(*plan.setup);
  sim.enable_spike_log(log_capacity);
  CortexRun r;
  while (sim.steps_done() < steps) {
    sim.step();
    if (sim.steps_done() == steps / 2) r.spikes = sim.drain_spikes();  // a drain in the middle of the run
  }
  const auto rest = sim.drain_spikes();
  r.spikes.insert(r.spikes.end(), rest.begin(), rest.end());
  r.v = sim.variable(point::V);
  r.dt = plan.setup->params.dt;
  if (replayed) *replayed = sim.replays_steps();
  return r;
}

double rate_hz(const CortexRun& r, std::int64_t neurons, double ms) {
  return double(r.spikes.size()) / (double(neurons) * ms * 1e-3);
}

const char* const kMethods[] = {
    "integrator = \"forward_euler\"",
    "integrator = \"exponential_euler\"",
    "eai = true",
    "lut = true",
    "eai = true\nlut = true",
    "eai = true\ntpm = true",
    "eai = true\nlut = true\ntpm = true",
    "integrator = \"exponential_euler\"\neai = true\nlut = true\ntpm = true",
    "gating = \"wang2012\"\nintegrator = \"exponential_euler\"\neai = true\nlut = true\ntpm = true",
    "gating = \"wang2012\"\neai = true",
};

}  // namespace

TEST_SUITE("cortex_hh") {
  TEST_CASE("gating functions: the study's (V = v + 70 mV) and Traub-Miles (VT = -55 mV) against hand values") {
    double g[8];
    cortex::gating_functions<double>(int(cortex::Gating::Wang2012), -55.0, -70.0, g);  // V = 0
    CHECK(g[0] == doctest::Approx(0.01798620996209156).epsilon(1e-12));
    CHECK(g[1] == doctest::Approx(0.0125471656289936).epsilon(1e-12));
    CHECK(g[2] == doctest::Approx(0.8581489350995123).epsilon(1e-12));
    CHECK(g[3] == doctest::Approx(6.354336956445488).epsilon(1e-12));
    CHECK(g[4] == doctest::Approx(0.017124033315727736).epsilon(1e-12));
    CHECK(g[5] == doctest::Approx(0.782347715905496).epsilon(1e-12));
    CHECK(g[6] == doctest::Approx(0.02931223075135632).epsilon(1e-12));
    CHECK(g[7] == doctest::Approx(158.02639721548522).epsilon(1e-12));
    cortex::gating_functions<double>(int(cortex::Gating::Wang2012), -55.0, -20.0, g);  // V = 50: upper branches
    CHECK(g[0] == doctest::Approx(0.9046505351008906).epsilon(1e-12));
    CHECK(g[1] == doctest::Approx(0.030771597772363782).epsilon(1e-12));
    CHECK(g[5] == doctest::Approx(5.550826707287323).epsilon(1e-12));
    // tau_m keeps the printed jump at V = 38 (documented)
    double lo[8], hi[8];
    cortex::gating_functions<double>(1, -55.0, -70.0 + 37.999, lo);
    cortex::gating_functions<double>(1, -55.0, -70.0 + 38.001, hi);
    CHECK(lo[1] == doctest::Approx(0.0125 + 0.007 * std::exp(-2.001 / 8)).epsilon(1e-9));
    CHECK(hi[1] > 0.1);
    cortex::gating_functions<double>(int(cortex::Gating::TraubMiles), -55.0, -55.0, g);  // u = 0
    CHECK(g[0] == doctest::Approx(0.01475674533323321).epsilon(1e-12));
    CHECK(g[1] == doctest::Approx(0.08793863771209223).epsilon(1e-12));
    CHECK(g[2] == doctest::Approx(0.9959410367609733).epsilon(1e-12));
    CHECK(g[3] == doctest::Approx(3.025914462431017).epsilon(1e-12));
    CHECK(g[4] == doctest::Approx(0.03769685637004723).epsilon(1e-12));
    CHECK(g[5] == doctest::Approx(1.4988848836221638).epsilon(1e-12));
    cortex::gating_functions<double>(0, -55.0, -35.0, g);  // p at its midpoint
    CHECK(g[6] == doctest::Approx(0.5).epsilon(1e-14));
    CHECK(g[7] == doctest::Approx(1000.0 / 4.3).epsilon(1e-12));
    // float agrees with double to float precision away from the exprel singularities
    float gf[8];
    cortex::gating_functions<float>(0, -55.0f, -62.3f, gf);
    cortex::gating_functions<double>(0, -55.0, double(-62.3f), g);
    for (int k = 0; k < 8; ++k) CHECK(double(gf[k]) == doctest::Approx(g[k]).epsilon(1e-5));
  }

  TEST_CASE("LUT: linear interpolation within dv^2/8 max|f''| of the exact functions; error falls ~4x per halving") {
    for (int gating : {0, 1}) {
      CAPTURE(gating);
      double previous = 0;
      for (double dv : {0.2, 0.1, 0.05}) {
        CAPTURE(dv);
        point::PointParameters p = point::point_parameter_set("wang2012").params;
        p.gating = gating;
        p.lut = true;
        p.lut_dv = dv;
        p.lut_v_min = -100;
        p.lut_v_max = 60;
        const std::vector<double> t = cortex::build_gate_table(p);
        REQUIRE(t.size() == std::size_t(p.lut_rows()) * 8);
        cortex::CortexStepFunctor<Kokkos::Serial, double, true> f;
        Kokkos::View<double*, Kokkos::HostSpace> lut("lut", t.size());
        for (std::size_t k = 0; k < t.size(); ++k) lut(k) = t[k];
        f.lut = lut;
        double two[2] = {1.0, 1.0};
        f.c = cortex::CortexConstants<double>::make(p, 1, two);
        // exact values with the update factors of forward Euler at dt (what the table holds)
        auto exact_at = [&](double v, double* out) {
          cortex::gating_functions<double>(gating, p.v_t, v, out);
          for (int q = 0; q < 4; ++q) out[2 * q + 1] = cortex::gate_factor<double>(out[2 * q + 1], p.dt, false);
        };
        auto near_jump = [&](double v) { return gating == 1 && std::fabs(v - (-32.0)) < 2 * dv; };  // tau_m's jump
        // max |f''| per function over the range, from second differences at h = 0.005 mV
        double f2[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        const double h = 0.005;
        for (double v = -95.0; v <= 55.0; v += h) {
          if (near_jump(v)) continue;
          double a[8], b[8], c0[8];
          exact_at(v - h, a);
          exact_at(v, c0);
          exact_at(v + h, b);
          for (int k = 0; k < 8; ++k) f2[k] = std::fmax(f2[k], std::fabs(a[k] - 2 * c0[k] + b[k]) / (h * h));
        }
        double worst_ratio = 0, worst = 0;
        for (double v = -95.0; v <= 55.0; v += 0.0137) {
          if (near_jump(v)) continue;
          double got[8], exact[8];
          f.gates(v, got);
          exact_at(v, exact);
          for (int k = 0; k < 8; ++k) {
            const double bound = dv * dv / 8 * f2[k] * 1.05 + 1e-13;  // linear interpolation error bound
            const double err = std::fabs(got[k] - exact[k]);
            worst = std::fmax(worst, err);
            worst_ratio = std::fmax(worst_ratio, err / bound);
          }
        }
        CHECK(worst_ratio <= 1.0);
        if (previous > 0) CHECK(worst < previous / 3.0);
        previous = worst;
      }
    }
  }

  TEST_CASE_TEMPLATE_DEFINE("EAI: a network step of dt is the basic method; 1 ms steps keep the rates", Backend,
                            eai_matches_basic) {
    const std::int64_t steps = 10000;  // 200 ms
    const auto basic = run_cortex<Backend, double>(network_toml(""), steps);
    const auto eai_dt = run_cortex<Backend, double>(network_toml("eai = true\n[model.parameters]\nnetwork_dt = 0.02"),
                                                    steps);
    const auto eai = run_cortex<Backend, double>(network_toml("eai = true"), steps);
    REQUIRE(basic.spikes.size() > 100);
    CHECK(eai_dt.spikes == basic.spikes);
    CHECK(eai_dt.v == basic.v);
    CHECK(eai.spikes != basic.spikes);  // 1 ms exchange is an approximation...
    CHECK(rate_hz(eai, 400, 200) == doctest::Approx(rate_hz(basic, 400, 200)).epsilon(0.05));  // ...of the rates
  }
  TEST_CASE_TEMPLATE_APPLY(eai_matches_basic, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("TPM is forward Euler when every neuron is active, projective when none is", Backend,
                            tpm_reduces) {
    const std::int64_t steps = 10000;
    const auto eai = run_cortex<Backend, double>(network_toml("eai = true"), steps);
    const auto all_active =
        run_cortex<Backend, double>(network_toml("eai = true\ntpm = true\n[model.parameters]\ntpm_v = -1000"), steps);
    const auto none_active =
        run_cortex<Backend, double>(network_toml("eai = true\ntpm = true\n[model.parameters]\ntpm_v = 1000"), steps);
    REQUIRE(eai.spikes.size() > 100);
    CHECK(all_active.spikes == eai.spikes);
    CHECK(all_active.v == eai.v);
    CHECK(none_active.v != eai.v);
  }
  TEST_CASE_TEMPLATE_APPLY(tpm_reduces, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("every method: spikes identical to Serial on CPU backends, rates within 5 % on GPUs",
                            Backend, methods_match_serial) {
    const std::int64_t steps = 5000;  // 100 ms
    for (const char* m : kMethods) {
      CAPTURE(std::string(m));
      const std::string toml = network_toml(m);
      const auto ref = run_cortex<SerialBackend, float>(toml, steps);
      const auto got = run_cortex<Backend, float>(toml, steps);
      REQUIRE(ref.spikes.size() > 30);
      if (Backend::is_gpu) {
        CHECK(double(got.spikes.size()) == doctest::Approx(double(ref.spikes.size())).epsilon(0.05));
      } else {
        CHECK(got.spikes == ref.spikes);
        CHECK(got.v == ref.v);
      }
    }
  }
  TEST_CASE_TEMPLATE_APPLY(methods_match_serial, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("replayed steps (a CUDA graph) give the run that launched steps give, bit for bit",
                            Backend, cortex_replay_matches_launch) {
    for (const char* method : {kMethods[0], kMethods[6]}) {  // basic; EAI + LUT + TPM (the partition scan too)
      CAPTURE(method);
      const std::string toml = network_toml(method);
      const std::int64_t steps = std::string(method).find("eai") == std::string::npos ? 5000 : 6000;
      bool replayed[2] = {true, false};
      const CortexRun launched = run_cortex<Backend, double, false>(toml, steps, 4000, &replayed[0]);
      const CortexRun replay = run_cortex<Backend, double, true>(toml, steps, 4000, &replayed[1]);
      CHECK(!replayed[0]);
      // Backends that declare a step graph must really replay (a failed recording falls back silently otherwise).
      CHECK(replayed[1] == is_detected_v<StepGraphOf, Backend>);
      REQUIRE(launched.spikes.size() > 100);
      CHECK(launched.spikes == replay.spikes);
      CHECK(launched.v == replay.v);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(cortex_replay_matches_launch, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("the wang2012 network fires in a sane band with input and is silent without", Backend,
                            network_rates) {
    const std::int64_t steps = 15000;  // 300 ms, in-degree 200 as the study, default weights
    const std::string driven = network_toml("eai = true\nlut = true\ntpm = true", 1000, 200, 0.01, 0.1, 3.0);
    const auto r = run_cortex<Backend, float>(driven, steps);
    const double rate = rate_hz(r, 1000, 300);
    CHECK(rate > 5.0);
    CHECK(rate < 60.0);
    for (double v : r.v) CHECK(std::isfinite(v));
    const auto quiet = run_cortex<Backend, float>(network_toml("eai = true\nlut = true\ntpm = true", 1000, 200, 0.01,
                                                               0.1, 0.0), steps);
    CHECK(quiet.spikes.empty());
    // the input window: input only in [0, 20) ms starts activity that ends (no self-sustained firing here)
    const auto pulse = run_cortex<Backend, float>(
        network_toml("eai = true\nlut = true\ntpm = true\n[model.parameters]\ninput_stop = 20", 1000, 200, 0.01, 0.1,
                     3.0),
        steps);
    std::int64_t late = 0;
    for (const auto& e : pulse.spikes) late += double(e.first) * 0.02 > 150.0 ? 1 : 0;
    CHECK(late == 0);
    CHECK(!pulse.spikes.empty());
    CHECK(pulse.spikes.size() < r.spikes.size());
  }
  TEST_CASE_TEMPLATE_APPLY(network_rates, KBRAIN_TEST_BACKENDS);

  TEST_CASE("config: methods need their prerequisites; unknown keys are errors") {
    const auto tpm_alone = parse_model_experiment(network_toml("tpm = true"), "t.toml");
    CHECK_THROWS_AS(point::make_spiking_plan(tpm_alone, PlanRequest{0, 0, 0}), ConfigError);
    CHECK_THROWS_AS(parse_model_experiment(network_toml("rk4 = true"), "t.toml"), ConfigError);
    CHECK_THROWS_AS(parse_model_experiment(network_toml("integrator = \"rk4\""), "t.toml"), ConfigError);
    const auto eai_coarse = parse_model_experiment(network_toml("eai = true\n[model.parameters]\nnetwork_dt = 0.03"), "t.toml");
    CHECK_THROWS_AS(
        point::make_spiking_plan(eai_coarse, PlanRequest{0, 0, 0}),
        ConfigError);
    const auto all_methods = parse_model_experiment(network_toml("eai = true\nlut = true\ntpm = true"), "t.toml");
    const auto plan = point::make_spiking_plan(all_methods, PlanRequest{0, 0, 0});
    CHECK(plan.setup->params.substeps() == 50);
    CHECK(plan.setup->params.lut);
    CHECK(plan.setup->params.tpm);
    // Poisson sources are refused while planning, before any output exists
    const std::string poisson = network_toml("") + "[[input]]\nkind = \"poisson\"\nsources = 10\nrate = 5\n"
                                                   "probability = 0.1\nweight = 0.01\n";
    const auto with_poisson = parse_model_experiment(poisson, "t.toml");
    CHECK_THROWS_AS(point::make_spiking_plan(with_poisson, PlanRequest{0, 0, 0}),
                    ConfigError);
    // delays: whole ms in [2, 4] -> network steps 1..3 (arrival exactly D after the spike's step)
    for (auto d : spiking::build_network(plan.setup->network, plan.setup->delays).delay) {
      CHECK(d >= 1);
      CHECK(d <= 3);
    }
  }

  TEST_CASE("accuracy metrics: matching, rates, spectral peak") {
    std::vector<spiking::TimedSpike> ref, test;
    for (int k = 0; k < 10; ++k) {
      ref.push_back({100.0 * k + 5, 0});
      test.push_back({100.0 * k + 5.5, 0});
    }
    test.push_back({50.0, 1});
    const auto m = spiking::match_spikes(ref, test, 2, 2.0);
    CHECK(m.matched == 10);
    CHECK(m.mean_abs_ms == doctest::Approx(0.5));
    CHECK(spiking::match_spikes(ref, test, 2, 0.1).matched == 0);
    std::vector<double> rate(1000);
    for (int k = 0; k < 1000; ++k) rate[k] = 1.0 + std::sin(2 * 3.14159265358979 * 9.0 * k * 1e-3);
    CHECK(spiking::spectral_peak_hz(rate, 1.0, 2.0, 100.0, 0.25) == doctest::Approx(9.0).epsilon(0.03));
  }
}
