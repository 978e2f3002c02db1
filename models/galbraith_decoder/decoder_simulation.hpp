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
#include "models/runtime/memory_statement.hpp"
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

  // The device bytes of memory() below for a population of `neurons` decoded as multi-units (mu) or single units
  // (the plan's window and grouping).
  static double pipeline_bytes(const DecoderPlan& plan, std::int64_t neurons, bool mu) {
    DecoderPlan sized;  // only the fields units() reads
    sized.neurons = neurons;
    sized.group = plan.group;
    const double real = sizeof(Real), n = double(neurons), units = double(sized.units(mu));
    const double tr = double(plan.train_samples), te = double(plan.test_samples);
    const auto lag = static_cast<std::int64_t>(std::llround(plan.max_lag_ms / plan.dt_ms));
    const double p = 2.0 * double(next_pow2(plan.train_samples + lag + 1)), k = p / 2 + 1;
    const double rows = std::min(units, Backend::is_gpu ? 256.0 : 16.0);
    return (tr + te + 2.0 * double(lag)) * n + units * tr * real + (rows + 2) * p * real +
           (2 * rows + 2) * k * 2 * real + 16.0 * (tr + te + 2.0 * double(lag)) + 2 * units * units * real +
           kNeuronDoubles * 8.0 * n;
  }
  static constexpr double kNeuronDoubles = 7;  // τ_RC, τ_ref, τ_psc, J_bias, α and the preferred direction

  // The device bytes of the decodes a run makes: its own; with output files also the picture's other estimate (SU
  // beside MU), decoded at the end from the same spikes (finish), whose pipeline is the larger one when the units are
  // single neurons.
  static double run_bytes(const DecoderPlan& plan, std::int64_t neurons, bool files) {
    const double own = pipeline_bytes(plan, neurons, plan.multi_unit);
    return files ? std::max(own, pipeline_bytes(plan, neurons, !plan.multi_unit)) : own;
  }

  // The largest arrays of the pipeline on the backend, from the plan: the spike trains (a byte per unit and
  // sample), the responses (units x train samples), the FFT rows and spectra (for a length of at most twice the
  // next power of two above train samples + lag: the PSC taps are shorter than the training window), the stimulus,
  // Γ and Υ, the neurons' parameters; with output files, of both decodes (run_bytes). Refused (exit 2) beyond the
  // backend's free memory. The host holds the stimulus in double and every τ_psc (on a GPU, while they are drawn, a
  // host copy of every parameter).
  static MemoryStatement memory(const DecoderPlan& plan, const RunRequest& request) {
    const double tr = double(plan.train_samples), te = double(plan.test_samples);
    const auto lag = static_cast<std::int64_t>(std::llround(plan.max_lag_ms / plan.dt_ms));
    const bool files = !request.out_dir.empty();
    MemoryStatement m;
    m.device_bytes = run_bytes(plan, plan.neurons, files);
    m.host_bytes = 16.0 * (tr + 2 * te + 2.0 * double(lag)) +
                   8.0 * double(plan.neurons) * (Backend::is_gpu ? 1.0 + kNeuronDoubles : 1.0);
    const auto hw = Backend::describe();
    const double free = double(hw.free_memory_bytes);
    if (free > 0 && m.device_bytes > free)
      throw NotEnoughMemory(fmt::format(
          "{}: [population]: {} neurons decoded over {:.0f} training samples{} need about {} on {} ({}) but {} are "
          "free; at most {} neurons fit with this training window (or a shorter window)",
          plan.config->source.string(), plan.neurons, tr,
          files ? fmt::format(" ({} units, then {} for the picture's other estimate)",
                              plan.multi_unit ? "multi" : "single", plan.multi_unit ? "single units" : "multi-units")
                : std::string(),
          byte_text(m.device_bytes), Backend::name, hw.device, byte_text(free),
          largest_fitting(plan.neurons, free, [&](std::int64_t n) { return run_bytes(plan, n, files); })));
    return m;
  }

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
                 const Kokkos::View<std::int64_t*, Mem>& lag = {}, std::int64_t out_len = 0);  // decoder_stages.hpp

  // A(u, t) <- A(u, min(t + lag_u, T - 1)): the responses moved earlier by their lag.
  void shift(const Matrix& a, const Kokkos::View<std::int64_t*, Mem>& lag) const {
    const std::int64_t T = a.extent(1);
    Kokkos::parallel_for("kbrain::decoder::shift", Range(0, std::int64_t(a.extent(0))), KOKKOS_LAMBDA(const std::int64_t r) {
      const std::int64_t d = lag(r);
      for (std::int64_t t = 0; t < T; ++t) a(r, t) = a(r, t + d < T ? t + d : T - 1);
    });
  }

  // Stages 4 and 5 of one decode (SU or MU): delay correction, Γ and Υ, the solve, the test estimate and its NRMSE.
  DecodeResult decode(bool mu);  // decoder_stages.hpp

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

#include "models/galbraith_decoder/decoder_stages.hpp"  // respond() and decode(), defined out of the class
