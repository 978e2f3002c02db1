// The InfOli reference case (tests/data/io/all2all10): every backend, float and double, against the
// original serial C simulator's V_axon trace and spike steps, with the tolerances of its README.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "models/olive/olive_model.hpp"
#include "models/runtime/model_runner.hpp"
#include "tests/backend_types.hpp"
#include "tests/io_test_support.hpp"

namespace {

using namespace kbrain;

struct Tolerance {
  double max_dv;       // mV, steps 1..20000
  std::int64_t spike;  // steps
};

template <class Backend, class Real>
void check_reference(Tolerance tol) {
  constexpr std::int64_t kSteps = 40000, kCompared = 20000;
  static const auto ref_v = test::read_reference_v_axon(kCompared);
  static const auto ref_spikes = test::read_reference_spikes();
  REQUIRE(ref_v.size() == kCompared);
  REQUIRE(ref_spikes.size() == 10);

  const ExperimentConfig cfg = test::all2all10_config(kSteps);
  const olive::OlivePlan plan = olive::make_olive_plan(cfg, PlanRequest{});
  REQUIRE(plan.network->cells == 10);
  RunRequest request;
  request.probe_cells = olive::spread_cells(10, 10);
  request.progress = false;
  const RunResult r = run_model<olive::OliveModel, Backend, Real>(plan, request);
  REQUIRE(r.probes.size() == std::size_t(kSteps * 10));

  double max_dv = 0;
  for (std::int64_t k = 0; k < kCompared; ++k)
    for (int c = 0; c < 10; ++c) max_dv = std::max(max_dv, std::fabs(r.probes[k * 10 + c] - ref_v[k][c]));
  INFO("backend " << std::string(Backend::name) << ", " << std::string(precision_name<Real>()) << ": max |dV_axon| = " << max_dv);
  CHECK(max_dv <= tol.max_dv);

  // Spikes: upward crossings of -20 mV, per cell, over the whole 40 000 steps. kbrain numbers a spike by the
  // number of updates done when the sample is first >= -20 mV (the trace's step column); spike_steps.json numbers
  // it by the 0-based index of the update that produced that sample, i.e. one less.
  std::vector<std::vector<std::int64_t>> got(10);
  for (std::int64_t k = 0; k < kSteps; ++k)
    for (int c = 0; c < 10; ++c) {
      const double prev = k == 0 ? -60.0 : r.probes[(k - 1) * 10 + c];
      if (prev < -20.0 && r.probes[k * 10 + c] >= -20.0) got[c].push_back(k + 1);
    }
  std::int64_t total = 0;
  for (int c = 0; c < 10; ++c) {
    INFO("cell " << c);
    REQUIRE(got[c].size() == ref_spikes[c].size());
    for (std::size_t s = 0; s < got[c].size(); ++s) CHECK(std::llabs(got[c][s] - (ref_spikes[c][s] + 1)) <= tol.spike);
    total += static_cast<std::int64_t>(ref_spikes[c].size());
  }
  // The on-device spike detector agrees with the trace.
  CHECK(r.spikes == total);
}

}  // namespace

TEST_SUITE("io_reference") {
  TEST_CASE_TEMPLATE_DEFINE("InfOli all2all10 reference trace, double", Backend, io_reference_double) {
    check_reference<Backend, double>({1e-6, 1});
  }
  TEST_CASE_TEMPLATE_APPLY(io_reference_double, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("InfOli all2all10 reference trace, float", Backend, io_reference_float) {
    check_reference<Backend, float>({1e-3, 2});
  }
  TEST_CASE_TEMPLATE_APPLY(io_reference_float, KBRAIN_TEST_BACKENDS);
}
