// The runner's check for a state that stopped being finite: the reduction that finds the first NaN/inf on every
// backend (float and double, the lowest index winning), a blown-up run that stops, says where and is never complete,
// and the IO x-gate rate at the 0/0 point that turned float IO meshes to NaN.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <Kokkos_Core.hpp>
#include <fmt/format.h>

#include "backends/registry.hpp"
#include "experiments/program/commands.hpp"
#include "models/common/device_sampler.hpp"
#include "models/olive/cell/io_math.hpp"
#include "models/olive/cell/io_step.hpp"
#include "models/registry.hpp"
#include "models/runtime/non_finite_state.hpp"
#include "tests/backend_types.hpp"
#include "tests/io_test_support.hpp"
#include "tests/test_helpers.hpp"

namespace {

namespace fs = std::filesystem;
using kbrain::test::blow_up_experiment;

template <class Real, class Mem>
struct GridReader {  // variable v, index i -> values(v, i)
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> values;
  KOKKOS_INLINE_FUNCTION Real operator()(int v, std::int64_t i) const { return values(v, i); }
};

// first_implausible over variables {0, 2} of a 3 x count grid with `planted` (variable, index, value) entries, with
// `bounds` for the two checked variables (empty: none).
template <class Backend, class Real>
std::int64_t first_planted(std::int64_t count, const std::vector<std::tuple<int, std::int64_t, Real>>& planted,
                           const std::vector<double>& bounds = {}) {
  using Mem = typename Backend::memory_space;
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> values("values", 3, count);
  auto host = Kokkos::create_mirror_view(values);
  for (std::int64_t i = 0; i < count; ++i)
    for (int v = 0; v < 3; ++v) host(v, i) = Real(-60) + Real(i % 7);
  for (const auto& [v, i, x] : planted) host(v, i) = x;
  Kokkos::deep_copy(values, host);
  return kbrain::first_implausible<typename Backend::execution_space, Real>(GridReader<Real, Mem>{values}, {0, 2},
                                                                           bounds, count);
}

template <class Backend, class Real>
void check_first_non_finite() {
  const Real nan = std::numeric_limits<Real>::quiet_NaN(), inf = std::numeric_limits<Real>::infinity();
  const Real big = std::numeric_limits<Real>::max();
  const std::int64_t n = 100000;
  CHECK(first_planted<Backend, Real>(n, {}) == -1);
  CHECK(first_planted<Backend, Real>(n, {{0, 0, big}, {2, 5, -big}}) == -1);  // large is still finite
  CHECK(first_planted<Backend, Real>(n, {{1, 3, nan}}) == -1);                 // variable 1 is not checked
  CHECK(first_planted<Backend, Real>(n, {{0, 777, nan}}) == 777);
  CHECK(first_planted<Backend, Real>(n, {{2, 5, inf}}) == n + 5);              // slot 1 (variable 2), index 5
  CHECK(first_planted<Backend, Real>(n, {{2, 5, -inf}, {0, 99999, nan}, {0, 4000, inf}}) == 4000);
  // Bounds: the grid's values lie in [-60, -54]; a magnitude beyond a slot's bound is found like NaN, either sign.
  const double unbounded = std::numeric_limits<double>::infinity();
  CHECK(first_planted<Backend, Real>(n, {}, {100, 100}) == -1);
  CHECK(first_planted<Backend, Real>(n, {{0, 0, big}, {2, 5, -big}}, {unbounded, unbounded}) == -1);
  CHECK(first_planted<Backend, Real>(n, {{0, 10, Real(1e4)}}, {1e4, 1e4}) == -1);  // at the bound is plausible
  CHECK(first_planted<Backend, Real>(n, {{0, 10, Real(2e4)}}, {1e4, unbounded}) == 10);
  CHECK(first_planted<Backend, Real>(n, {{2, 7, Real(-2e4)}}, {1e4, 1e4}) == n + 7);
  CHECK(first_planted<Backend, Real>(n, {{2, 7, Real(-2e4)}}, {1e4, unbounded}) == -1);  // slot 1 has no bound
  CHECK(first_planted<Backend, Real>(n, {{1, 3, Real(1e30)}}, {1, 1e4}) == 0);  // slot 0's own values exceed 1
  CHECK(first_planted<Backend, Real>(n, {{2, 9, nan}, {0, 50, Real(5e4)}}, {1e4, 1e4}) == 50);
}

// 10 AdEx neurons, all firing, with tauw = 1 us at dt = 1 ms: the adaptation current's forward-Euler step multiplies
// it by about -1000 every step, so x overflows to inf within a few hundred steps.
fs::path adex_blow_up_experiment(const fs::path& dir) {
  std::ofstream(dir / "adex_blow_up.toml")
      << "name = \"adex_blow_up\"\n[model]\nkind = \"adex_costa\"\n[model.parameters]\ntauw = 0.001\n"
      << "[simulation]\ndt = 1.0\nsteps = 2000\nprecision = \"double\"\n"
      << "[network]\narchitecture = \"mxm\"\nneurons = 10\nconnectivity = \"all\"\n[spikes]\npattern = \"all\"\n";
  return dir / "adex_blow_up.toml";
}

// `kbrain run EXPERIMENT -b BACKEND -o DIR/out --finite-check-every EVERY`: the step and message of the NonFiniteState
// it throws (-1 and "" if it throws none).
struct Stopped {
  std::int64_t step = -1;
  std::string message;
};
Stopped run_until_not_finite(const fs::path& experiment, const std::string& backend, const fs::path& dir,
                             std::int64_t every) {
  kbrain::RunOptions o;
  o.experiment = experiment.string();
  o.backend = backend;
  o.out_dir = (dir / "out").string();
  o.no_plots = true;
  o.finite_check_every = every;
  Stopped stopped;
  try {
    kbrain::cmd_run(o);
  } catch (const kbrain::NonFiniteState& e) {
    stopped = {e.step, e.what()};
  }
  return stopped;
}

}  // namespace

TEST_SUITE("finite_check") {
  TEST_CASE_TEMPLATE_DEFINE("first_non_finite: the lowest checked (variable, index) that is NaN or inf", Backend,
                            finite_reduce) {
    check_first_non_finite<Backend, double>();
    check_first_non_finite<Backend, float>();
  }
  TEST_CASE_TEMPLATE_APPLY(finite_reduce, KBRAIN_TEST_BACKENDS);

  TEST_CASE("a blown-up run stops at the check that finds it, writes what it recorded, and is never complete") {
    for (const auto& backend : kbrain::backend_names()) {
      for (const std::int64_t every : {std::int64_t(500), std::int64_t(0)}) {
        CAPTURE(backend);
        CAPTURE(every);
        const kbrain::test::TempDir tmp("finite");
        const fs::path& dir = tmp.path;
        const auto [stopped, message] = run_until_not_finite(blow_up_experiment(dir), backend, dir, every);
        CHECK(stopped == (every > 0 ? 500 : 3000));  // the first check after the pulse, or the end
        // NaN, or a finite value beyond the model's bound on its way there: either stops the run
        CHECK((message.find("is NaN or infinite") != std::string::npos ||
               message.find("beyond its plausible bound") != std::string::npos));
        CHECK(message.find("of cell ") != std::string::npos);
        CHECK_FALSE(fs::exists(dir / "out"));  // kept under its working name, which the message names
        const fs::path kept = kbrain::test::kept_folder(dir / "out");
        CHECK(message.find(kept.string()) != std::string::npos);
        const std::string manifest = kbrain::test::read_text(kept / "run.json");
        CHECK(manifest.find("\"complete\": false") != std::string::npos);
        CHECK(manifest.find("\"failed\": \"the state is not ") != std::string::npos);
        CHECK(kbrain::test::count_lines(kept / "trace.csv") == std::size_t(stopped) + 1);  // header + recorded steps
      }
    }
  }

  TEST_CASE("adex_costa: an unstable forward-Euler step stops the run at the check after it, naming the variable") {
    for (const auto& backend : kbrain::backend_names()) {
      CAPTURE(backend);
      const kbrain::test::TempDir tmp("finite_adex");
      const auto [stopped, message] = run_until_not_finite(adex_blow_up_experiment(tmp.path), backend, tmp.path, 1000);
      CHECK(stopped == 1000);
      CHECK(message.find(" is NaN or infinite") != std::string::npos);
      CHECK(message.find("of cell ") != std::string::npos);
      const std::string manifest = kbrain::test::read_text(kbrain::test::kept_folder(tmp.path / "out") / "run.json");
      CHECK(manifest.find("\"complete\": false") != std::string::npos);
    }
  }

  TEST_CASE("a finite state beyond its plausible bound stops the run like NaN, naming the value and the bound") {
    for (const auto& backend : kbrain::backend_names()) {
      CAPTURE(backend);
      const kbrain::test::TempDir tmp("plausible");
      // The IO blow-up case with a bound below the resting potential's magnitude: refused before the first step.
      const fs::path exp = blow_up_experiment(tmp.path);
      std::ofstream(exp, std::ios::app) << "[simulation.plausible]\nv_axon = 50\n";
      const auto [stopped, message] = run_until_not_finite(exp, backend, tmp.path, 500);
      CHECK(stopped == 0);
      CHECK(message.find("the initial state is not plausible: v_axon of cell 0 is -") != std::string::npos);
      CHECK(message.find("mV, beyond its plausible bound |v_axon| <= 50 mV") != std::string::npos);
      const std::string manifest = kbrain::test::read_text(kbrain::test::kept_folder(tmp.path / "out") / "run.json");
      CHECK(manifest.find("\"complete\": false") != std::string::npos);
    }
    // A pulse of 1e8 drives the dendrite far beyond the model's own bound of 1e4 mV in its first update, before
    // anything overflows: the check after that step stops the run on a finite value beyond the declared bound.
    const kbrain::test::TempDir tmp("plausible_default");
    const fs::path exp = blow_up_experiment(tmp.path);
    std::string text = kbrain::test::read_text(exp);
    text.replace(text.find("amplitude = 1e30"), 16, "amplitude = 1e8");
    std::ofstream(exp) << text;
    const auto [stopped, message] = run_until_not_finite(exp, "serial", tmp.path, 1);
    const std::string& reason = message;  // CAPTURE's lambda cannot name a structured binding in C++17 (clang)
    CAPTURE(reason);
    CHECK(stopped == 101);  // the pulse is on from update 100, the 101st step
    CHECK(message.find("beyond its plausible bound |v_") != std::string::npos);
    CHECK(message.find("<= 10000 mV") != std::string::npos);
  }

  TEST_CASE("[simulation.plausible]: a key that is no variable of the model, or a bound <= 0, is refused with its line") {
    // experiments/cuba.toml (a LIF network) with the table appended
    const std::string base =
        kbrain::test::read_text(fs::path(KBRAIN_SOURCE_DIR) / "experiments" / "cuba.toml") + "\n[simulation.plausible]\n";
    const std::string line = fmt::format("p.toml:{}", std::count(base.begin(), base.end(), '\n') + 1);
    const auto error_of = [&](const std::string& table) {
      try {
        kbrain::parse_experiment(base + table, "p.toml", kbrain::model_catalog());
      } catch (const kbrain::ConfigError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK(error_of("v = 100\n").empty());
    CHECK(error_of("vm = 100\n").find(line) != std::string::npos);
    CHECK(error_of("vm = 100\n").find("simulation.plausible.vm is not a variable of model.kind = \"lif\"") !=
          std::string::npos);
    CHECK(error_of("v = 0\n").find("simulation.plausible.v must be > 0 (got 0)") != std::string::npos);
    CHECK(error_of("v = -5\n").find("must be > 0") != std::string::npos);
    const kbrain::ExperimentConfig cfg = kbrain::parse_experiment(base + "v = 250\n", "p.toml", kbrain::model_catalog());
    REQUIRE(cfg.plausible.size() == 1);
    CHECK(cfg.plausible[0] == std::pair<std::string, double>{"v", 250.0});
  }

  TEST_CASE("IO x-gate rate: the limit 1.3 at V = -25 mV, where the quotient is 0/0, and the quotient elsewhere") {
    using kbrain::olive::NativeMath;
    using kbrain::olive::potassium_x_rate;
    CHECK(potassium_x_rate<NativeMath, float>(0.0f, 1.0f) == doctest::Approx(1.3));
    CHECK(potassium_x_rate<NativeMath, double>(0.0, 1.0) == doctest::Approx(1.3));
    for (const double u : {-1e-3, 1e-3, -0.5, 2.0, 30.0}) {
      CAPTURE(u);
      const double exact = 0.13 * u / (1.0 - std::exp(-u / 10.0));
      CHECK(potassium_x_rate<NativeMath, double>(u, std::exp(-u / 10.0)) == doctest::Approx(exact).epsilon(1e-12));
      CHECK(potassium_x_rate<NativeMath, float>(float(u), std::exp(float(-u / 10.0))) ==
            doctest::Approx(exact).epsilon(2e-3));
    }
  }
}
