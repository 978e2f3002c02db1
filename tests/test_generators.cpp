// Random network generators (uniform, gaussian3d): identical CSR on every backend, structural invariants, realised
// density, the Gaussian distance law (chi-square) and symmetry. The kernels' own paths, per-cell independence,
// config and the memory planner: test_generator_kernels.cpp.
#include <doctest/doctest.h>

#include "tests/generator_test_support.hpp"

using namespace kbrain::generator_test;
using kbrain::GapNetwork;
using kbrain::RandomNetworkSpec;
using Kind = RandomNetworkSpec::Kind;

TEST_SUITE("generators") {
  TEST_CASE_TEMPLATE_DEFINE("generated CSR is bit-identical to Serial", Backend, generators_identity) {
    for (const auto& spec : all_specs()) {
      CAPTURE(name_of(spec));
      const GapNetwork ref = generate<kbrain::SerialBackend>(spec);
      const GapNetwork got = generate<Backend>(spec);
      CHECK(got.offsets == ref.offsets);
      CHECK(got.sources == ref.sources);
      CHECK(got.conductance == ref.conductance);  // exact doubles, drawn from integers
      const GapNetwork got_f = generate<Backend, float>(spec);  // topology does not depend on precision
      CHECK(got_f.sources == ref.sources);
    }
  }
  TEST_CASE_TEMPLATE_APPLY(generators_identity, KBRAIN_TEST_BACKENDS);

  TEST_CASE("no self or duplicate junctions, sources ascending, conductance in range") {
    for (const auto& spec : all_specs()) {
      CAPTURE(name_of(spec));
      check_structure(generate<kbrain::SerialBackend>(spec), spec);
    }
  }
  TEST_CASE("realised mean density within 1 % of the target; mode exact gives every cell exactly density") {
    for (const auto& spec : {uniform_spec(20000, 50, false, false), uniform_spec(20000, 50, false, true),
                             gaussian_spec(27000, 50, 1.0, 3.0, false), gaussian_spec(27000, 50, 1.0, 3.0, true),
                             gaussian_spec(30000, 40, 1.0, 5.0, false)}) {
      CAPTURE(name_of(spec));
      const GapNetwork net = generate<kbrain::SerialBackend>(spec);
      CHECK(std::fabs(mean_degree(net) / spec.density - 1) < 0.01);
    }
    const auto spec = uniform_spec(5000, 37, true, false);
    const GapNetwork net = generate<kbrain::SerialBackend>(spec);
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < net.cells; ++i) wrong += (net.offsets[i + 1] - net.offsets[i]) != 37;
    CHECK(wrong == 0);
  }

  TEST_CASE("gaussian3d distance histogram follows exp(-d^2 / 2 sigma^2) (chi-square, fixed seed)") {
    // 8000 cells (a 20^3 cube), sigma 1, scale 2 => width 2 lattice units, density 40: ~320000 junctions in
    // half-unit distance bins. Threshold: the chi-square quantile at upper-tail probability 0.001.
    const auto spec = gaussian_spec(8000, 40, 1.0, 2.0, false);
    const int bins = 40;
    const auto observed = gaussian_observed_bins(generate<kbrain::SerialBackend>(spec), bins);
    const auto fit = chi_square(observed, gaussian_expected_bins(8000, 40, 2.0, bins));
    const double chi2 = fit.first;
    const int dof = fit.second;
    CAPTURE(chi2);
    CAPTURE(dof);
    CHECK(dof >= 15);
    CHECK(chi2 < chi2_critical_0001(dof));
    // The test can tell a different law apart: a 10 % wider Gaussian is rejected.
    const auto [chi2_wrong, dof_wrong] = chi_square(observed, gaussian_expected_bins(8000, 40, 2.2, bins));
    CHECK(chi2_wrong > chi2_critical_0001(dof_wrong));
  }

  TEST_CASE("symmetric: j in in(i) <=> i in in(j), with the same conductance") {
    for (const auto& spec : {with_range(uniform_spec(3000, 20, false, true)),
                             with_range(gaussian_spec(4000, 30, 1.0, 2.0, true))}) {
      CAPTURE(name_of(spec));
      const GapNetwork net = generate<kbrain::SerialBackend>(spec);
      REQUIRE(net.junctions() > 0);
      std::map<std::pair<std::int32_t, std::int32_t>, double> edges;
      for (std::int64_t i = 0; i < net.cells; ++i)
        for (std::int64_t k = net.offsets[i]; k < net.offsets[i + 1]; ++k)
          edges[{static_cast<std::int32_t>(i), net.sources[k]}] = net.g(k);
      std::int64_t missing = 0, different = 0;
      for (const auto& [e, g] : edges) {
        auto it = edges.find({e.second, e.first});
        if (it == edges.end()) ++missing;
        else if (it->second != g) ++different;
      }
      CHECK(missing == 0);
      CHECK(different == 0);
    }
  }
}
