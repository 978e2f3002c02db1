#pragma once
// Stages 3-5 of the decoder pipeline (decoder_simulation.hpp has the list): DecoderSimulation::respond (PSC
// convolution, low-pass, cross-correlation with the stimulus) and DecoderSimulation::decode (delay correction, Γ and
// Υ, the solve, the estimate, NRMSE). Included at the end of decoder_simulation.hpp, after the class; not on its own.

namespace kbrain::galbraith {

template <class Backend, class Real>
auto DecoderSimulation<Backend, Real>::respond(const Trains& u, const Matrix& x, const std::vector<PscFilter>& filters,
                                              bool correlate, Kokkos::View<double**, Kokkos::LayoutRight, Mem> score,
                                              DecoderTimes& tm, const Kokkos::View<std::int64_t*, Mem>& lag,
                                              std::int64_t out_len) -> Matrix {
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

template <class Backend, class Real>
DecodeResult DecoderSimulation<Backend, Real>::decode(bool mu) {
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

}  // namespace kbrain::galbraith
