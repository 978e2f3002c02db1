// device_exp (models/common/device_exp.hpp), the exp of the IO kernels' NativeExp, on every backend: within
// 1.5 ulp of exp over [-708, 708] (the table-driven CUDA path; host backends call libm), and the library's
// results outside that range (overflow, underflow, NaN).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "models/common/device_exp.hpp"
#include "tests/backend_types.hpp"

namespace {

template <class Backend>
std::vector<double> device_exp_on(const std::vector<double>& x) {
  using Mem = typename Backend::memory_space;
  Kokkos::View<double*, Mem> in("x", x.size()), out("y", x.size());
  auto h = Kokkos::create_mirror_view(in);
  for (std::size_t i = 0; i < x.size(); ++i) h(i) = x[i];
  Kokkos::deep_copy(in, h);
  Kokkos::parallel_for(
      "device_exp", Kokkos::RangePolicy<typename Backend::execution_space>(0, static_cast<int>(x.size())),
      KOKKOS_LAMBDA(const int i) { out(i) = kbrain::device_exp(in(i)); });
  Kokkos::deep_copy(h, out);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

// |got - exp(x)| in units in the last place of got, against long double expl.
double ulp_error(double x, double got) {
  const long double ref = std::exp(static_cast<long double>(x));
  const double ulp = std::nextafter(got, std::numeric_limits<double>::infinity()) - got;
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / ulp);
}

}  // namespace

TEST_SUITE("io_model") {
  TEST_CASE_TEMPLATE_DEFINE("device_exp: within 1.5 ulp of exp, the library's outside [-708, 708]", Backend,
                            io_device_exp) {
    std::vector<double> x;
    const int n = 400000;
    for (int i = 0; i <= n; ++i) x.push_back(-708.0 + 1416.0 * i / n);        // the whole range, 3.5e-3 apart
    for (int i = 0; i <= n; ++i) x.push_back(-60.0 + 120.0 * i / n + 1e-7);  // the model's range, densely
    for (const double v : {0.0, -0.0, 1e-300, -1e-300, 708.0, -708.0}) x.push_back(v);
    const std::vector<double> y = device_exp_on<Backend>(x);
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) worst = std::fmax(worst, ulp_error(x[i], y[i]));
    CAPTURE(worst);
    CHECK(worst <= 1.5);
    CHECK(y[y.size() - 6] == 1.0);

    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> edge = {709.5, 710.0, inf, -745.0, -800.0, -inf, std::nan("")};
    const std::vector<double> e = device_exp_on<Backend>(edge);
    CHECK(ulp_error(709.5, e[0]) <= 1.0);
    CHECK(e[1] == inf);
    CHECK(e[2] == inf);
    CHECK(e[3] > 0.0);  // subnormal
    CHECK(e[3] < 1e-320);
    CHECK(e[4] == 0.0);
    CHECK(e[5] == 0.0);
    CHECK(std::isnan(e[6]));
  }
  TEST_CASE_TEMPLATE_APPLY(io_device_exp, KBRAIN_TEST_BACKENDS);
}
