// device_exp and device_div (models/common/device_math.hpp), the exp and division of the IO kernels' NativeMath,
// on every backend (the CUDA paths are the table-driven exp and the reciprocal-estimate division; host backends
// call libm and divide): accuracy in ulp, and the library's results outside the table's range.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "models/common/device_math.hpp"
#include "models/common/simd_exp.hpp"
#include "models/olive/gap/io_gap_junctions.hpp"
#include "tests/backend_types.hpp"

namespace {

// f(a[i], b[i]) evaluated on the backend.
template <class Backend, class Real, class F>
std::vector<Real> on_backend(const std::vector<Real>& a, const std::vector<Real>& b, F f) {
  using Mem = typename Backend::memory_space;
  Kokkos::View<Real*, Mem> va("a", a.size()), vb("b", a.size()), out("out", a.size());
  auto ha = Kokkos::create_mirror_view(va);
  auto hb = Kokkos::create_mirror_view(vb);
  for (std::size_t i = 0; i < a.size(); ++i) ha(i) = a[i], hb(i) = b.empty() ? Real(0) : b[i];
  Kokkos::deep_copy(va, ha);
  Kokkos::deep_copy(vb, hb);
  Kokkos::parallel_for(
      "device_math", Kokkos::RangePolicy<typename Backend::execution_space>(0, static_cast<int>(a.size())),
      KOKKOS_LAMBDA(const int i) { out(i) = f(va(i), vb(i)); });
  Kokkos::deep_copy(ha, out);
  return std::vector<Real>(ha.data(), ha.data() + ha.extent(0));
}

struct Exp {
  KOKKOS_INLINE_FUNCTION double operator()(double x, double) const { return kbrain::device_exp(x); }
};
struct PolyExp {
  KOKKOS_INLINE_FUNCTION double operator()(double x, double) const { return kbrain::device_exp_poly_in_range(x); }
};
// The gap term of one junction (g = 0.04) with each Math.
template <class Math>
struct GapTerm {
  template <class Real>
  KOKKOS_INLINE_FUNCTION Real operator()(Real dv, Real) const { return kbrain::olive::gap_term<Math>(Real(0.04), dv); }
};
struct Div {
  template <class Real>
  KOKKOS_INLINE_FUNCTION Real operator()(Real a, Real b) const { return kbrain::device_div(a, b); }
};

// dV from 0 to far beyond the gap exponent's cap (|dV| ~ 83.7 mV puts it at -70), both signs, after 0, -0, +-1e300,
// +-inf and NaN (indices 0 .. 6).
std::vector<double> gap_dv_sweep() {
  std::vector<double> dv = {0.0, -0.0, 1e300, -1e300, std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
  for (int i = 0; i < 100000; ++i) dv.push_back((i % 2 ? -1.0 : 1.0) * 1e-3 * std::pow(1.00013, double(i)));
  return dv;
}

// |got - exact| in units in the last place of got.
template <class Real>
double ulp_error(long double exact, Real got) {
  const Real ulp = std::nextafter(got, std::numeric_limits<Real>::infinity()) - got;
  return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / ulp);
}

// Arguments of an exp test: [-708, 708] 3.5e-3 apart, then [lo, hi] densely (shifted by nudge, off the grid).
std::vector<double> exp_arguments(double lo, double hi, double nudge) {
  std::vector<double> x;
  const int n = 400000;
  for (int i = 0; i <= n; ++i) x.push_back(-708.0 + 1416.0 * i / n);
  for (int i = 0; i <= n; ++i) x.push_back(lo + (hi - lo) * i / n + nudge);
  return x;
}
// The largest ulp error of y[i] against exp(x[i]).
double worst_exp_error(const std::vector<double>& x, const std::vector<double>& y) {
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) worst = std::fmax(worst, ulp_error(std::exp((long double)x[i]), y[i]));
  return worst;
}

// The largest ulp error of q[i] against the exact a[i] / b[i].
template <class Real>
double worst_quotient_error(const std::vector<Real>& a, const std::vector<Real>& b, const std::vector<Real>& q) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::fmax(worst, ulp_error(static_cast<long double>(a[i]) / static_cast<long double>(b[i]), q[i]));
  return worst;
}

// simd_exp called once per value from a function the compiler keeps out of line: its scalar code, to compare with
// the vectorised loop's.
template <class Real>
__attribute__((noinline)) Real simd_exp_scalar_call(Real x) {
  return kbrain::simd_exp(x);
}

// simd_exp over x in an `omp simd` loop, as the host kernels call it; the largest ulp error against exp, and how
// many results differ from the scalar calls' bits.
template <class Real>
std::pair<double, int> simd_exp_errors(const std::vector<Real>& x) {
  std::vector<Real> y(x.size());
  const Real* in = x.data();
  Real* out = y.data();
  const int n = static_cast<int>(x.size());
#pragma omp simd
  for (int i = 0; i < n; ++i) out[i] = kbrain::simd_exp(in[i]);
  double worst = 0;
  int differ = 0;
  for (int i = 0; i < n; ++i) {
    worst = std::fmax(worst, ulp_error(std::exp(static_cast<long double>(x[i])), y[i]));
    differ += simd_exp_scalar_call(x[i]) != y[i];
  }
  return {worst, differ};
}

// simd_exp over x: within 1.5 ulp of exp, vectorised bits equal to the scalar calls'.
template <class Real>
void check_simd_exp(const std::vector<Real>& x) {
  const auto errors = simd_exp_errors(x);
  const double worst = errors.first;
  const int differ = errors.second;
  CAPTURE(sizeof(Real));
  CAPTURE(worst);
  CHECK(worst <= 1.5);
  CHECK(differ == 0);
}

}  // namespace

TEST_SUITE("io_model") {
  TEST_CASE_TEMPLATE_DEFINE("device_exp: within 1.5 ulp of exp, the library's outside [-708, 708]", Backend,
                            io_device_exp) {
    std::vector<double> x = exp_arguments(-60.0, 60.0, 1e-7);  // densely: the model's range
    for (const double v : {0.0, -0.0, 1e-300, -1e-300, 708.0, -708.0}) x.push_back(v);
    const std::vector<double> y = on_backend<Backend>(x, {}, Exp{});
    const double worst = worst_exp_error(x, y);
    CAPTURE(worst);
    CHECK(worst <= 1.5);
    CHECK(y[y.size() - 6] == 1.0);

    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> edge = {709.5, 710.0, inf, -745.0, -800.0, -inf, std::nan("")};
    const std::vector<double> e = on_backend<Backend>(edge, {}, Exp{});
    CHECK(ulp_error(std::exp(709.5L), e[0]) <= 1.0);
    CHECK(e[1] == inf);
    CHECK(e[2] == inf);
    CHECK(e[3] >= 0.0);  // the smallest subnormal, or 0 where the library flushes it (CUDA)
    CHECK(e[3] < 1e-320);
    CHECK(e[4] == 0.0);
    CHECK(e[5] == 0.0);
    CHECK(std::isnan(e[6]));
  }
  TEST_CASE_TEMPLATE_APPLY(io_device_exp, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("device_exp_poly_in_range: within 1.5 ulp of exp on [-708, 708]", Backend,
                            io_device_exp_poly) {
    std::vector<double> x = exp_arguments(-70.0, 0.0, -1e-9);  // densely: the gap kernels' range
    for (int i = 1; i <= 2000; ++i) x.push_back(0.34657359027997264 * (1.0 + (i - 1000) * 1e-6));  // |r| ~ ln2 / 2
    for (const double v : {0.0, -0.0, 1e-300, -1e-300, 708.0, -708.0, -0.5 * 0.6931471805599453}) x.push_back(v);
    const std::vector<double> y = on_backend<Backend>(x, {}, PolyExp{});
    const double worst = worst_exp_error(x, y);
    CAPTURE(worst);
    CHECK(worst <= 1.5);
    CHECK(y[y.size() - 7] == 1.0);
    CHECK(y[y.size() - 6] == 1.0);
    CHECK(std::isnan(on_backend<Backend>(std::vector<double>{std::nan("")}, {}, PolyExp{})[0]));
  }
  TEST_CASE_TEMPLATE_APPLY(io_device_exp_poly, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("device_div: within 1 ulp (double) and 2 ulp (float) of a / b", Backend, io_device_div) {
    // Quotients as the IO step forms them: 1 / (1 + e), c*(V + k) / (e - 1), rates / tau, over magnitudes 1e-30..1e30.
    std::vector<double> a, b;
    for (int i = 0; i < 200000; ++i) {
      const double u = std::sin(1.0 + i * 0.7071), w = std::cos(2.0 + i * 0.3183);
      a.push_back((i % 3 == 0 ? 1.0 : u * 100.0) * std::pow(10.0, (i % 61) - 30) / 1e10);
      b.push_back((i % 2 == 0 ? 1.0 + std::exp(40.0 * w) : w * 50.0 + 1e-3) * std::pow(10.0, (i % 41) - 20));
    }
    const double worst = worst_quotient_error(a, b, on_backend<Backend>(a, b, Div{}));
    CAPTURE(worst);
    CHECK(worst <= 1.0);

    std::vector<float> af, bf;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (std::fabs(b[i]) < 1e30 && std::fabs(b[i]) > 1e-30 && std::fabs(a[i]) < 1e30) {
        af.push_back(static_cast<float>(a[i]));
        bf.push_back(static_cast<float>(b[i]));
      }
    const double worst_f = worst_quotient_error(af, bf, on_backend<Backend>(af, bf, Div{}));
    CAPTURE(worst_f);
    CHECK(worst_f <= 2.0);
    CHECK(af.size() > 100000);
  }
  TEST_CASE_TEMPLATE_APPLY(io_device_div, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("gap kernels' capped exp: the same gap terms, bit for bit, as NativeMath", Backend,
                            io_gap_kernel_math) {
    const std::vector<double> dv = gap_dv_sweep();
    const auto native = on_backend<Backend>(dv, {}, GapTerm<kbrain::olive::NativeMath>{});
    const auto capped = on_backend<Backend>(dv, {}, GapTerm<kbrain::olive::GapKernelMath>{});
    int differ = 0, nan_mismatch = 0;
    for (std::size_t i = 0; i < dv.size(); ++i) {
      if (std::isnan(native[i]) || std::isnan(capped[i]))
        nan_mismatch += std::isnan(native[i]) != std::isnan(capped[i]);
      else
        differ += native[i] != capped[i];
    }
    CHECK(std::fabs(dv.back()) > 1e2);  // the sweep passes the cap
    CHECK(differ == 0);
    CHECK(nan_mismatch == 0);
    CHECK(std::isnan(capped[6]));  // NaN in, NaN out
    CHECK(capped[4] == std::numeric_limits<double>::infinity());  // (0.8 g exp(-inf) + 0.2 g) * inf
  }
  TEST_CASE_TEMPLATE_APPLY(io_gap_kernel_math, KBRAIN_TEST_BACKENDS);

  TEST_CASE_TEMPLATE_DEFINE("table-free gap exp: gap terms within 2 ulp of NativeMath's, NaN and inf alike", Backend,
                            io_gap_kernel_table_free_math) {
    const std::vector<double> dv = gap_dv_sweep();
    const auto native = on_backend<Backend>(dv, {}, GapTerm<kbrain::olive::NativeMath>{});
    const auto table_free = on_backend<Backend>(dv, {}, GapTerm<kbrain::olive::GapKernelTableFreeMath>{});
    double worst = 0;
    int nan_mismatch = 0;
    for (std::size_t i = 0; i < dv.size(); ++i) {
      if (std::isnan(native[i]) || std::isnan(table_free[i]))
        nan_mismatch += std::isnan(native[i]) != std::isnan(table_free[i]);
      else if (std::isinf(native[i]) || native[i] == 0)
        worst = std::fmax(worst, native[i] == table_free[i] ? 0.0 : 1e9);
      else
        worst = std::fmax(worst, ulp_error(static_cast<long double>(native[i]), table_free[i]));
    }
    CAPTURE(worst);
    CHECK(worst <= 2.0);
    CHECK(nan_mismatch == 0);
    CHECK(std::isnan(table_free[6]));
    CHECK(table_free[4] == std::numeric_limits<double>::infinity());
  }
  TEST_CASE_TEMPLATE_APPLY(io_gap_kernel_table_free_math, KBRAIN_TEST_BACKENDS);

  // The host kernels' exp (VectorMath, models/common/simd_exp.hpp: used by the Serial and OpenMP backends' chunked
  // step; host code, so not templated over backends).
  TEST_CASE("simd_exp: within 1.5 ulp of exp over its range, vectorised bits equal to scalar calls, clamped outside") {
    std::vector<double> x = exp_arguments(-60.0, 60.0, 1e-7);
    for (int i = 0; i <= 1000; ++i) x.push_back(708.0 + i * 1e-3);  // up to the clamp at 709
    check_simd_exp(x);

    std::vector<float> xf;
    for (int i = 0; i <= 400000; ++i) xf.push_back(-87.0f + 175.0f * float(i) / 400000.0f);
    check_simd_exp(xf);

    CHECK(kbrain::simd_exp(0.0) == 1.0);
    CHECK(kbrain::simd_exp(0.0f) == 1.0f);
    CHECK(kbrain::simd_exp(-1000.0) == kbrain::simd_exp(-708.0));  // clamped: finite, normal
    CHECK(kbrain::simd_exp(1000.0) == kbrain::simd_exp(709.0));
    CHECK(std::isfinite(kbrain::simd_exp(1000.0)));
    CHECK(kbrain::simd_exp(-1000.0f) == kbrain::simd_exp(-87.0f));
    CHECK(std::isfinite(kbrain::simd_exp(1000.0f)));
  }
}
