#pragma once
// The Galbraith decoder pipeline on one backend; one step = the whole pipeline:
//   1. LIF population: one thread per neuron integrates its neuron over all T samples (training and test), writing
//      a byte per sample (spike or not), time-major (T x N) so a warp writes one line;
//   2. units: SU = the neurons' trains; MU = the summed trains of groups of `group` neighbours;
//   3. responses, per batch of units: PSC convolution (FFT: FFTW / cuFFT, padded to the next power of two, the
//      filter's transform evaluated in closed form; or direct), the Butterworth low-pass (one thread per unit),
//      then (training) the cross-correlation of each unit with both stimulus components by FFT;
//   4. delay correction: the lag of the peak of r_X(τ)² + r_Y(τ)² (summed over units, or per unit);
//   5. Γ = A·Aᵀ and Υ = A·X (Kokkos Kernels gemm), σ² on Γ's diagonal, Cholesky solve on the host (LAPACK dposv),
//      x̂ = A_testᵀ·φ (gemm), NRMSE on the host.
// The stimulus and the neuron parameters are drawn on the host in the constructor (setup).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <KokkosBlas3_gemm.hpp>

#include "backends/host_blas.hpp"
#include "core/rng/counter_rng.hpp"
#include "core/text/atomic_file.hpp"
#include "core/timing/stopwatch.hpp"
#include "models/common/device_sampler.hpp"
#include "models/galbraith_decoder/decoder_fft.hpp"
#include "models/galbraith_decoder/decoder_plan.hpp"
#include "models/galbraith_decoder/decoder_signal.hpp"
#include "models/runtime/run_request.hpp"
#include "models/runtime/run_result.hpp"

extern "C" void dposv_(const char* uplo, const int* n, const int* nrhs, double* a, const int* lda, double* b,
                       const int* ldb, int* info);

namespace kbrain::galbraith {

template <class Real, class Mem>
struct DecoderReader {
  Kokkos::View<const Real*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> xhat;
  KOKKOS_INLINE_FUNCTION Real operator()(int, std::int64_t i) const { return xhat(i); }
};

// Counter-RNG streams of the random draws (counter = neuron index or spectrum bin).
enum DecoderStream : std::uint64_t {
  kTauRef = 1, kTauRc = 2, kTauPsc = 3, kAngle = 4,
  kTrainX = 1000, kTrainY = 1001, kTestX = 1002, kTestY = 1003
};

// Component times of one decode (s), fenced.
struct DecoderTimes {
  double units = 0, psc = 0, lowpass = 0, xcorr = 0, delay = 0, gamma = 0, upsilon = 0, solve = 0, estimate = 0;
};

struct DecodeResult {
  std::vector<double> xhat;  // test samples x 2, sample-major
  double nrmse[2] = {0, 0};
  double nrmse_mean = 0;
  double nrmse_rms = 0;  // RMSE / RMS, mean of X and Y
  std::vector<std::int64_t> lags;  // samples, per unit
  double sigma2 = 0;
  std::int64_t units = 0;
  DecoderTimes times;
};

template <class Backend, class Real>
class DecoderSimulation {
 public:
  using Exec = typename Backend::execution_space;
  using Mem = typename Backend::memory_space;
  using Reader = DecoderReader<Real, Mem>;
  using Sampler = DeviceSampler<Exec, Real, Reader>;
  using SpikeEvents = std::vector<std::pair<std::int64_t, std::int64_t>>;
  using Matrix = Kokkos::View<Real**, Kokkos::LayoutRight, Mem>;
  using Trains = Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Mem>;  // (samples, units)
  using Doubles = Kokkos::View<double*, Mem>;
  using Fft = RealFft<Exec, Real>;
  using Cx = Kokkos::complex<Real>;
  using Spectra = typename Fft::ComplexRows;
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;

  DecoderSimulation(const DecoderPlan& plan, const RunRequest& request, RunResult& res)
      : plan_(plan), out_dir_(request.out_dir), dt_s_(plan.dt_ms * 1e-3) {
    Stopwatch watch;
    const std::int64_t n = plan.neurons;
    // Stimulus (host, double).
    const std::int64_t Tr = plan.train_samples, Te = plan.test_samples;
    x_train_host_ = interleave(band_limited_signal(Tr, dt_s_, plan.cutoff_hz, plan.rms, plan.seed, kTrainX),
                               band_limited_signal(Tr, dt_s_, plan.cutoff_hz, plan.rms, plan.seed, kTrainY));
    x_test_host_ = interleave(band_limited_signal(Te, dt_s_, plan.cutoff_hz, plan.rms, plan.seed, kTestX),
                              band_limited_signal(Te, dt_s_, plan.cutoff_hz, plan.rms, plan.seed, kTestY));
    x_train_ = to_device("x_train", x_train_host_, Tr);
    // The test window is 10 s of a stimulus that goes on: the population runs `max_lag` samples before and after
    // it (the signal is periodic in its length, so this is its own continuation); the delay-corrected responses
    // then cover the whole window.
    const std::int64_t pad = max_lag();
    std::vector<double> run(std::size_t(2 * (Te + 2 * pad)));
    for (std::int64_t i = 0; i < Te + 2 * pad; ++i) {
      const std::int64_t t = ((i - pad) % Te + Te) % Te;
      run[std::size_t(2 * i)] = x_test_host_[std::size_t(2 * t)];
      run[std::size_t(2 * i + 1)] = x_test_host_[std::size_t(2 * t + 1)];
    }
    x_test_ = to_device("x_test_run", run, Te + 2 * pad);
    res.values.emplace_back("stimulus_s", watch.seconds());
    // Neurons (host, double): parameters uniform in their ranges, tuning, preferred direction.
    auto draw = [&](DecoderStream s, std::int64_t i, const double* r) {
      return r[0] + (r[1] - r[0]) * counter_uniform(plan.seed, s, std::uint64_t(i));
    };
    tau_rc_ = Doubles("tau_rc", n);
    tau_ref_ = Doubles("tau_ref", n);
    tau_psc_ = Doubles("tau_psc", n);
    j_bias_ = Doubles("j_bias", n);
    alpha_ = Doubles("alpha", n);
    ex_ = Doubles("ex", n);
    ey_ = Doubles("ey", n);
    auto h_rc = Kokkos::create_mirror_view(tau_rc_), h_ref = Kokkos::create_mirror_view(tau_ref_),
         h_psc = Kokkos::create_mirror_view(tau_psc_), h_jb = Kokkos::create_mirror_view(j_bias_),
         h_al = Kokkos::create_mirror_view(alpha_), h_ex = Kokkos::create_mirror_view(ex_),
         h_ey = Kokkos::create_mirror_view(ey_);
    for (std::int64_t i = 0; i < n; ++i) {
      h_ref(i) = 1e-3 * draw(kTauRef, i, plan.tau_ref_ms);
      h_rc(i) = 1e-3 * draw(kTauRc, i, plan.tau_rc_ms);
      h_psc(i) = 1e-3 * draw(kTauPsc, i, plan.tau_psc_ms);
      const LifTuning tune = lif_tuning(plan.max_rate_hz, plan.max_rate_hz * plan.noise_error, h_ref(i), h_rc(i));
      h_jb(i) = tune.j_bias;
      h_al(i) = tune.alpha;
      const double angle = 2 * kPi * counter_uniform(plan.seed, kAngle, std::uint64_t(i));
      h_ex(i) = std::cos(angle);
      h_ey(i) = std::sin(angle);
    }
    tau_psc_host_.assign(h_psc.data(), h_psc.data() + n);
    Kokkos::deep_copy(tau_rc_, h_rc);
    Kokkos::deep_copy(tau_ref_, h_ref);
    Kokkos::deep_copy(tau_psc_, h_psc);
    Kokkos::deep_copy(j_bias_, h_jb);
    Kokkos::deep_copy(alpha_, h_al);
    Kokkos::deep_copy(ex_, h_ex);
    Kokkos::deep_copy(ey_, h_ey);
    auto no_init = [](const char* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };
    spikes_train_ = Trains(no_init("spikes_train"), Tr, n);
    spikes_test_ = Trains(no_init("spikes_test"), Te + 2 * pad, n);
    xhat_ = Matrix("xhat", Te, 2);
    if constexpr (!Backend::is_gpu) set_host_blas_threads(Backend::describe().parallel_units);
    // The library's start-up (cuBLAS handle, kernel selection) belongs to setup, not to the first timed product.
    {
      Matrix a1("warm_a", 2, 2), b1("warm_b", 2, 2), c1("warm_c", 2, 2);
      KokkosBlas::gemm("N", "T", Real(1), a1, b1, Real(0), c1);
      KokkosBlas::gemm("N", "N", Real(1), a1, b1, Real(0), c1);
      KokkosBlas::gemm("T", "N", Real(1), a1, b1, Real(0), c1);
      Exec().fence();
    }
    res.connections = plan.connections;
    res.strategy = fmt::format("{} trains, {} PSC convolution ({}), delay {}, Kokkos Kernels gemm, LAPACK dposv",
                               plan.multi_unit ? "MU" : "SU", plan.fft ? "FFT" : "direct", Fft::kLibrary,
                               plan.per_unit_delay ? "per unit" : "global");
  }

  std::int64_t steps_per_call() const { return 1; }
  std::int64_t steps_done() const { return steps_; }
  void fence() { Exec().fence(); }
  std::int64_t device_bytes() const { return peak_bytes_; }
  Reader state() const {
    return Reader{Kokkos::View<const Real*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(xhat_.data(), xhat_.size())};
  }
  bool spikes_due(std::int64_t, std::int64_t, bool) const { return false; }
  SpikeEvents drain_spikes(bool) { return {}; }

  void step() {
    if constexpr (!Backend::is_gpu) set_host_blas_threads(Backend::describe().parallel_units);
    Stopwatch watch;
    simulate_population();
    lif_s_ = watch.seconds();
    last_ = decode(plan_.multi_unit);
    ++steps_;
  }

  void finish(RunResult& res) {
    const DecoderTimes& t = last_.times;
    std::int64_t spikes = 0;
    for (const auto& [k, v] : std::vector<std::pair<const char*, double>>{
             {"lif_s", lif_s_}, {"units_s", t.units}, {"psc_s", t.psc}, {"lowpass_s", t.lowpass},
             {"xcorr_s", t.xcorr}, {"delay_s", t.delay}, {"gamma_s", t.gamma}, {"upsilon_s", t.upsilon},
             {"solve_s", t.solve}, {"estimate_s", t.estimate},
             {"decoder_fit_s", t.gamma + t.upsilon + t.solve},
             {"nrmse", last_.nrmse_mean}, {"nrmse_x", last_.nrmse[0]}, {"nrmse_y", last_.nrmse[1]}, {"nrmse_by_rms", last_.nrmse_rms},
             {"units", double(last_.units)}, {"sigma2", last_.sigma2}, {"lag_ms", mean_lag_ms(last_)},
             {"fft_length_train", double(fft_length(plan_.train_samples))},
             {"fft_length_test", double(fft_length(plan_.test_samples))}})
      res.values.emplace_back(k, v);
    spikes = count_spikes();
    res.values.emplace_back("train_spikes", double(spikes));
    res.values.emplace_back("mean_rate_hz", double(spikes) / double(plan_.neurons) / plan_.train_s);
    res.figures.emplace_back("neuron_samples", double(plan_.neurons) * double(plan_.train_samples + plan_.test_samples) *
                                                   double(steps_));
    if (out_dir_.empty() || steps_ == 0) return;
    // The picture's other estimate (SU beside MU): decoded from the same spikes, outside the timed loop.
    const DecodeResult other = decode(!plan_.multi_unit);
    res.values.emplace_back(plan_.multi_unit ? "nrmse_su" : "nrmse_mu", other.nrmse_mean);
    res.values.emplace_back(plan_.multi_unit ? "nrmse_mu" : "nrmse_su", last_.nrmse_mean);
    const DecodeResult& su = plan_.multi_unit ? other : last_;
    const DecodeResult& mu = plan_.multi_unit ? last_ : other;
    write_signals(su, mu);
  }

  // For tests: the last decode.
  const DecodeResult& last() const { return last_; }

 // The pipeline's stages (public: nvcc allows device lambdas only in functions with public access).
  static std::vector<double> interleave(const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> x(2 * a.size());
    for (std::size_t t = 0; t < a.size(); ++t) {
      x[2 * t] = a[t];
      x[2 * t + 1] = b[t];
    }
    return x;
  }
  Matrix to_device(const char* name, const std::vector<double>& x, std::int64_t n) {
    Matrix m(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)), n, 2);
    auto h = Kokkos::create_mirror_view(m);
    for (std::int64_t t = 0; t < n; ++t)
      for (int c = 0; c < 2; ++c) h(t, c) = Real(x[std::size_t(2 * t + c)]);
    Kokkos::deep_copy(m, h);
    return m;
  }
  std::int64_t max_taps() const { return psc_filter(plan_.tau_psc_ms[1] * 1e-3, dt_s_, plan_.psc_scale).taps; }
  std::int64_t max_lag() const { return static_cast<std::int64_t>(std::llround(plan_.max_lag_ms / plan_.dt_ms)); }
  std::int64_t fft_length(std::int64_t T) const { return next_pow2(T + std::max(max_taps(), max_lag()) + 1); }
  double mean_lag_ms(const DecodeResult& r) const {
    double s = 0;
    for (auto l : r.lags) s += double(l);
    return r.lags.empty() ? 0 : s / double(r.lags.size()) * plan_.dt_ms;
  }

  void simulate_population() {
    auto run = [&](const Matrix& x, const Trains& s) {
      const std::int64_t T = x.extent(0);
      const double dt = dt_s_;
      const auto rc = tau_rc_, ref = tau_ref_, jb = j_bias_, al = alpha_, ex = ex_, ey = ey_;
      Kokkos::parallel_for("kbrain::decoder::lif", Range(0, plan_.neurons), KOKKOS_LAMBDA(const std::int64_t i) {
        double v = 0, refractory = 0;
        const double a = al(i), b = jb(i), px = ex(i), py = ey(i), trc = rc(i), tref = ref(i);
        for (std::int64_t t = 0; t < T; ++t) {
          const double j = a * (px * double(x(t, 0)) + py * double(x(t, 1))) + b;
          s(t, i) = lif_step(v, refractory, j, dt, trc, tref) ? 1 : 0;
        }
      });
    };
    run(x_train_, spikes_train_);
    run(x_test_, spikes_test_);
    Exec().fence();
  }

  std::int64_t count_spikes() const {
    std::int64_t total = 0;
    const auto s = spikes_train_;
    const std::int64_t n = plan_.neurons;
    Kokkos::parallel_reduce("kbrain::decoder::count", Range(0, std::int64_t(s.extent(0)) * n),
                            KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& sum) { sum += s(k / n, k % n); }, total);
    return total;
  }

  // Unit trains: SU = the spikes; MU = sums over groups of neighbours. Filter per unit: SU the neuron's τ_psc,
  // MU the group's mean τ_psc.
  Trains unit_trains(const Trains& s, bool mu) const {
    if (!mu) return s;
    const std::int64_t n = plan_.neurons, g = plan_.group, m = plan_.units(true), T = s.extent(0);
    Trains u(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("mu_trains")), T, m);
    Kokkos::parallel_for("kbrain::decoder::mu", Range(0, T * m), KOKKOS_LAMBDA(const std::int64_t k) {
      const std::int64_t t = k / m, unit = k % m;
      int sum = 0;
      for (std::int64_t i = unit * g; i < n && i < (unit + 1) * g; ++i) sum += s(t, i);
      u(t, unit) = std::uint8_t(sum);
    });
    return u;
  }
  std::vector<PscFilter> unit_filters(bool mu) const {
    const std::int64_t m = plan_.units(mu), g = mu ? plan_.group : 1;
    std::vector<PscFilter> f;
    for (std::int64_t u = 0; u < m; ++u) {
      double sum = 0;
      std::int64_t count = 0;
      for (std::int64_t i = u * g; i < plan_.neurons && i < (u + 1) * g; ++i, ++count) sum += tau_psc_host_[std::size_t(i)];
      f.push_back(psc_filter(sum / double(count), dt_s_, plan_.psc_scale));
    }
    return f;
  }

  // The responses of every unit (units x T): PSC convolution, low-pass; with `score` (units x lags), the
  // cross-correlation power with the stimulus added into it.
  // Without `correlate` (the test responses): the input starts `pad` samples before the window, and unit r's
  // response is written delay-corrected: a(r, t) = y(pad + t + lag(r)), t < out_len.
  Matrix respond(const Trains& u, const Matrix& x, const std::vector<PscFilter>& filters, bool correlate,
                 Kokkos::View<double**, Kokkos::LayoutRight, Mem> score, DecoderTimes& tm,
                 const Kokkos::View<std::int64_t*, Mem>& lag = {}, std::int64_t out_len = 0) {
    const std::int64_t T = u.extent(0), M = u.extent(1), P = fft_length(T), K = P / 2 + 1, lags = max_lag() + 1;
    const std::int64_t T_out = correlate ? T : out_len, pad = correlate ? 0 : max_lag();
    const std::int64_t B = std::min<std::int64_t>(M, Backend::is_gpu ? 256 : 16);
    auto no_init = [](const char* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };
    Matrix a(no_init("responses"), M, T_out);
    Doubles fa(no_init("psc_a"), M), fnorm(no_init("psc_norm"), M), faL(no_init("psc_aL"), M);
    Kokkos::View<std::int64_t*, Mem> ftaps(no_init("psc_taps"), M);
    {
      auto ha = Kokkos::create_mirror_view(fa), hn = Kokkos::create_mirror_view(fnorm), hL = Kokkos::create_mirror_view(faL);
      auto ht = Kokkos::create_mirror_view(ftaps);
      for (std::int64_t k = 0; k < M; ++k) {
        ha(k) = filters[std::size_t(k)].a;
        hn(k) = filters[std::size_t(k)].norm;
        ht(k) = filters[std::size_t(k)].taps;
        hL(k) = std::pow(ha(k), double(ht(k)));
      }
      Kokkos::deep_copy(faL, hL);
      Kokkos::deep_copy(fa, ha);
      Kokkos::deep_copy(fnorm, hn);
      Kokkos::deep_copy(ftaps, ht);
    }
    Matrix buf(no_init("fft_rows"), B, P);
    Spectra spec, spec2, xf;
    std::optional<Fft> fft;
    const bool use_fft = plan_.fft || correlate;
    Kokkos::View<double**, Kokkos::LayoutRight, Mem> twiddle;  // (P, 2): cos, sin of 2πj/P
    if (use_fft) {
      fft.emplace(P, B);
      spec = Spectra(no_init("fft_spectra"), B, K);
      twiddle = decltype(twiddle)(no_init("twiddles"), P, 2);
      const auto tw = twiddle;
      Kokkos::parallel_for("kbrain::decoder::twiddles", Range(0, P), KOKKOS_LAMBDA(const std::int64_t j) {
        const double w = 2.0 * 3.14159265358979323846 * double(j) / double(P);
        tw(j, 0) = ::cos(w);
        tw(j, 1) = ::sin(w);
      });
    }
    if (correlate) {  // the stimulus' spectra, zero padded to P
      spec2 = Spectra(no_init("fft_products"), B, K);
      xf = Spectra(no_init("stimulus_spectra"), 2, K);
      Fft fx(P, 2);
      Matrix xr("stimulus_rows", 2, P);
      Kokkos::parallel_for("kbrain::decoder::x_rows", Range(0, T), KOKKOS_LAMBDA(const std::int64_t t) {
        xr(0, t) = x(t, 0);
        xr(1, t) = x(t, 1);
      });
      fx.forward(xr, xf, 2);
    }
    peak_bytes_ = std::max<std::int64_t>(peak_bytes_, std::int64_t(a.span() * sizeof(Real) + buf.span() * sizeof(Real) +
                                                                    (spec.span() + spec2.span()) * sizeof(Cx) +
                                                                    (spikes_train_.span() + spikes_test_.span())));
    const Biquad bq = butterworth_lowpass(plan_.lowpass_hz, dt_s_);
    const bool direct = !plan_.fft;
    const double inv_p = 1.0 / double(P);
    for (std::int64_t r0 = 0; r0 < M; r0 += B) {
      const std::int64_t rows = std::min(B, M - r0);
      Stopwatch w;
      if (direct) {
        Kokkos::parallel_for("kbrain::decoder::psc_direct", Range(0, B * P), KOKKOS_LAMBDA(const std::int64_t k) {
          const std::int64_t b = k / P, t = k % P, unit = r0 + b;
          double sum = 0;
          if (unit < M && t < T) {
            const double fa_u = fa(unit);
            const std::int64_t taps = ftaps(unit) < t + 1 ? ftaps(unit) : t + 1;
            double h = fnorm(unit);
            for (std::int64_t j = 0; j < taps; ++j, h *= fa_u) {
              const std::uint8_t c = u(t - j, unit);
              if (c) sum += h * double(c);
            }
          }
          buf(b, t) = Real(sum);
        });
      } else {
        Kokkos::parallel_for("kbrain::decoder::psc_fill", Range(0, B * P), KOKKOS_LAMBDA(const std::int64_t k) {
          const std::int64_t b = k / P, t = k % P, unit = r0 + b;
          buf(b, t) = unit < M && t < T ? Real(u(t, unit)) : Real(0);
        });
        fft->forward(buf, spec, rows);
        // The filter's transform in closed form: H(k) = norm·(1 - a^L z^-L)/(1 - a z^-1), z = exp(2πik/P).
        Kokkos::parallel_for("kbrain::decoder::psc_multiply", Range(0, rows * K), KOKKOS_LAMBDA(const std::int64_t q) {
          const std::int64_t b = q / K, k = q % K, unit = r0 + b;
          const double a_u = fa(unit), aL = faL(unit);
          const std::int64_t kl = (k * ftaps(unit)) & (P - 1);  // P is a power of two
          const Kokkos::complex<double> num(1.0 - aL * twiddle(kl, 0), aL * twiddle(kl, 1));
          const Kokkos::complex<double> den(1.0 - a_u * twiddle(k, 0), a_u * twiddle(k, 1));
          const Kokkos::complex<double> h = fnorm(unit) * num / den * inv_p;
          const Kokkos::complex<double> s(spec(b, k).real(), spec(b, k).imag());
          const Kokkos::complex<double> y = s * h;
          spec(b, k) = Cx(Real(y.real()), Real(y.imag()));
        });
        fft->inverse(spec, buf, rows);
      }
      Exec().fence();
      tm.psc += w.seconds();
      w.restart();
      Kokkos::parallel_for("kbrain::decoder::lowpass", Range(0, rows), KOKKOS_LAMBDA(const std::int64_t b) {
        double s1 = 0, s2 = 0;
        const std::int64_t first = correlate ? 0 : pad + lag(r0 + b);  // input sample of a(r, 0)
        for (std::int64_t t = 0; t < T; ++t) {
          const double in = double(buf(b, t));
          const double y = bq.b0 * in + s1;
          s1 = bq.b1 * in - bq.a1 * y + s2;
          s2 = bq.b2 * in - bq.a2 * y;
          const std::int64_t to = t - first;
          if (to >= 0 && to < T_out) a(r0 + b, to) = Real(y);
          buf(b, t) = Real(y);
        }
      });
      Exec().fence();
      tm.lowpass += w.seconds();
      if (!correlate) continue;
      w.restart();
      Kokkos::parallel_for("kbrain::decoder::pad", Range(0, B * (P - T)), KOKKOS_LAMBDA(const std::int64_t k) {
        const std::int64_t b = k / (P - T), t = T + k % (P - T);
        buf(b, t) = Real(0);
      });
      if (rows < B)
        Kokkos::parallel_for("kbrain::decoder::pad_rows", Range(rows * P, B * P), KOKKOS_LAMBDA(const std::int64_t k) {
          buf(k / P, k % P) = Real(0);
        });
      fft->forward(buf, spec, rows);
      for (int c = 0; c < 2; ++c) {
        Kokkos::parallel_for("kbrain::decoder::xcorr_product", Range(0, B * K), KOKKOS_LAMBDA(const std::int64_t q) {
          const std::int64_t b = q / K, k = q % K;
          spec2(b, k) = spec(b, k) * Kokkos::conj(xf(c, k));
        });
        fft->inverse(spec2, buf, rows);
        Kokkos::parallel_for("kbrain::decoder::xcorr_power", Range(0, rows * lags), KOKKOS_LAMBDA(const std::int64_t q) {
          const std::int64_t b = q / lags, l = q % lags;
          const double r = double(buf(b, l)) * inv_p;
          score(r0 + b, l) += r * r;
        });
      }
      Exec().fence();
      tm.xcorr += w.seconds();
    }
    return a;
  }

  // A(u, t) <- A(u, min(t + lag_u, T - 1)): the responses moved earlier by their lag.
  void shift(const Matrix& a, const Kokkos::View<std::int64_t*, Mem>& lag) const {
    const std::int64_t T = a.extent(1);
    Kokkos::parallel_for("kbrain::decoder::shift", Range(0, std::int64_t(a.extent(0))), KOKKOS_LAMBDA(const std::int64_t r) {
      const std::int64_t d = lag(r);
      for (std::int64_t t = 0; t < T; ++t) a(r, t) = a(r, t + d < T ? t + d : T - 1);
    });
  }

  DecodeResult decode(bool mu) {
    DecodeResult res;
    DecoderTimes& tm = res.times;
    const std::int64_t M = plan_.units(mu), Te = plan_.test_samples, lags = max_lag() + 1;
    res.units = M;
    Stopwatch w;
    const Trains u_train = unit_trains(spikes_train_, mu), u_test = unit_trains(spikes_test_, mu);
    Exec().fence();
    tm.units = w.seconds();
    const std::vector<PscFilter> filters = unit_filters(mu);
    Kokkos::View<double**, Kokkos::LayoutRight, Mem> score("xcorr_power", M, lags);
    Matrix a = respond(u_train, x_train_, filters, true, score, tm);
    // Delay: the lag of the cross-correlation power's peak.
    w.restart();
    auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), score);
    res.lags.assign(std::size_t(M), 0);
    if (plan_.per_unit_delay) {
      for (std::int64_t r = 0; r < M; ++r)
        for (std::int64_t l = 1; l < lags; ++l)
          if (hs(r, l) > hs(r, res.lags[std::size_t(r)])) res.lags[std::size_t(r)] = l;
    } else {
      std::int64_t best = 0;
      double top = -1;
      for (std::int64_t l = 0; l < lags; ++l) {
        double s = 0;
        for (std::int64_t r = 0; r < M; ++r) s += hs(r, l);
        if (s > top) top = s, best = l;
      }
      res.lags.assign(std::size_t(M), best);
    }
    Kokkos::View<std::int64_t*, Mem> lag("lags", M);
    {
      auto hl = Kokkos::create_mirror_view(lag);
      for (std::int64_t r = 0; r < M; ++r) hl(r) = res.lags[std::size_t(r)];
      Kokkos::deep_copy(lag, hl);
    }
    shift(a, lag);
    Exec().fence();
    tm.delay += w.seconds();
    Matrix at = respond(u_test, x_test_, filters, false, score, tm, lag, Te);

    // Decoders.
    Matrix G("gamma", M, M), Y("upsilon", M, 2), phi("phi", M, 2);
    w.restart();
    KokkosBlas::gemm("N", "T", Real(1), a, a, Real(0), G);
    Exec().fence();
    tm.gamma = w.seconds();
    w.restart();
    KokkosBlas::gemm("N", "N", Real(1), a, x_train_, Real(0), Y);
    Exec().fence();
    tm.upsilon = w.seconds();
    w.restart();
    {
      auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), G);
      auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y);
      std::vector<double> g(std::size_t(M * M)), y(std::size_t(2 * M));
      double trace = 0;
      for (std::int64_t r = 0; r < M; ++r) trace += double(hg(r, r));
      res.sigma2 = plan_.regularisation * trace / double(M);
      for (std::int64_t r = 0; r < M; ++r) {
        for (std::int64_t c = 0; c < M; ++c) g[std::size_t(r * M + c)] = double(hg(r, c));
        g[std::size_t(r * M + r)] += res.sigma2;
        y[std::size_t(r)] = double(hy(r, 0));
        y[std::size_t(M + r)] = double(hy(r, 1));
      }
      const int n = int(M), nrhs = 2;
      int info = 0;
      dposv_("U", &n, &nrhs, g.data(), &n, y.data(), &n, &info);  // Γ symmetric: row-major = column-major
      if (info != 0)
        throw std::runtime_error(fmt::format("the Cholesky solve of Γφ = Υ failed (LAPACK dposv info {}): Γ + σ²I is "
                                             "not positive definite; raise simulation.regularisation (now {})",
                                             info, plan_.regularisation));
      auto hp = Kokkos::create_mirror_view(phi);
      for (std::int64_t r = 0; r < M; ++r) {
        hp(r, 0) = Real(y[std::size_t(r)]);
        hp(r, 1) = Real(y[std::size_t(M + r)]);
      }
      Kokkos::deep_copy(phi, hp);
    }
    tm.solve = w.seconds();
    w.restart();
    KokkosBlas::gemm("T", "N", Real(1), at, phi, Real(0), xhat_);
    Exec().fence();
    tm.estimate = w.seconds();
    auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), xhat_);
    res.xhat.resize(std::size_t(2 * Te));
    for (std::int64_t t = 0; t < Te; ++t)
      for (int c = 0; c < 2; ++c) res.xhat[std::size_t(2 * t + c)] = double(hx(t, c));
    for (int c = 0; c < 2; ++c) res.nrmse[c] = nrmse_by_range(x_test_host_.data() + c, res.xhat.data() + c, Te, 2);
    res.nrmse_mean = 0.5 * (res.nrmse[0] + res.nrmse[1]);
    for (int c = 0; c < 2; ++c) {  // RMSE / RMS of the true component (the other usual normalisation)
      double e2 = 0, x2 = 0;
      for (std::int64_t t = 0; t < Te; ++t) {
        const double x = x_test_host_[std::size_t(2 * t + c)], e = res.xhat[std::size_t(2 * t + c)] - x;
        e2 += e * e;
        x2 += x * x;
      }
      res.nrmse_rms += 0.5 * std::sqrt(e2 / x2);
    }
    return res;
  }

  // decoder_signals.csv: the test signal and both estimates, every 1 ms.
  void write_signals(const DecodeResult& su, const DecodeResult& mu) const {
    std::filesystem::create_directories(out_dir_);
    text::remove_planted_link(out_dir_ / "decoder_signals.csv");
    std::ofstream f(out_dir_ / "decoder_signals.csv");
    f << "t_s,x,y,su_x,su_y,mu_x,mu_y\n";
    const std::int64_t every = std::max<std::int64_t>(1, std::llround(1.0 / plan_.dt_ms));
    for (std::int64_t t = 0; t < plan_.test_samples; t += every) {
      const std::size_t k = std::size_t(2 * t);
      f << fmt::format("{:.6f},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g}\n", double(t) * dt_s_, x_test_host_[k],
                       x_test_host_[k + 1], su.xhat[k], su.xhat[k + 1], mu.xhat[k], mu.xhat[k + 1]);
    }
  }

 private:
  const DecoderPlan& plan_;
  std::filesystem::path out_dir_;
  double dt_s_;
  std::vector<double> x_train_host_, x_test_host_, tau_psc_host_;
  Matrix x_train_, x_test_, xhat_;
  Doubles tau_rc_, tau_ref_, tau_psc_, j_bias_, alpha_, ex_, ey_;
  Trains spikes_train_, spikes_test_;
  DecodeResult last_;
  double lif_s_ = 0;
  std::int64_t steps_ = 0, peak_bytes_ = 0;
};

}  // namespace kbrain::galbraith
