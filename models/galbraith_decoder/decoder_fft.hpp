#pragma once
// One small interface for batched real FFTs on every backend: FFTW3 on host execution spaces (Serial, OpenMP: one
// single-row plan, executed for the rows of a batch in parallel through the new-array interface, which FFTW allows
// from several threads), cuFFT on CUDA (one batched plan on the execution space's stream). The Galbraith decoder's
// convolutions (PSC filter, cross-correlations) and its stimulus use it; cmake/KbrainSignal.cmake links the libraries.
//   RealFft<Exec, Real> fft(n, batch);
//   fft.forward(in, out);   in:  View<Real**>(batch, n) (LayoutRight, Exec's memory), out: View<complex**>(batch, n/2+1)
//   fft.inverse(in, out);   unnormalised (a forward then inverse multiplies by n); the input is overwritten
// Only the first `rows` rows are transformed when rows < batch (the last batch of a matrix).
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <fftw3.h>
#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cufft.h>
#endif

namespace kbrain::galbraith {

// FFTW's planner is not thread safe; every plan is made and destroyed under this lock.
inline std::mutex& fftw_planner_lock() {
  static std::mutex m;
  return m;
}

template <class Real>
struct FftwApi;
template <>
struct FftwApi<double> {
  using Plan = fftw_plan;
  using Complex = fftw_complex;
  static Plan r2c(int n, double* in, Complex* out) { return fftw_plan_dft_r2c_1d(n, in, out, FFTW_ESTIMATE | FFTW_UNALIGNED); }
  static Plan c2r(int n, Complex* in, double* out) { return fftw_plan_dft_c2r_1d(n, in, out, FFTW_ESTIMATE | FFTW_UNALIGNED); }
  static void exec_r2c(Plan p, double* in, Complex* out) { fftw_execute_dft_r2c(p, in, out); }
  static void exec_c2r(Plan p, Complex* in, double* out) { fftw_execute_dft_c2r(p, in, out); }
  static void destroy(Plan p) { fftw_destroy_plan(p); }
};
template <>
struct FftwApi<float> {
  using Plan = fftwf_plan;
  using Complex = fftwf_complex;
  static Plan r2c(int n, float* in, Complex* out) { return fftwf_plan_dft_r2c_1d(n, in, out, FFTW_ESTIMATE | FFTW_UNALIGNED); }
  static Plan c2r(int n, Complex* in, float* out) { return fftwf_plan_dft_c2r_1d(n, in, out, FFTW_ESTIMATE | FFTW_UNALIGNED); }
  static void exec_r2c(Plan p, float* in, Complex* out) { fftwf_execute_dft_r2c(p, in, out); }
  static void exec_c2r(Plan p, Complex* in, float* out) { fftwf_execute_dft_c2r(p, in, out); }
  static void destroy(Plan p) { fftwf_destroy_plan(p); }
};

// Host execution spaces: FFTW.
template <class Exec, class Real, class Enable = void>
class RealFft {
 public:
  using Api = FftwApi<Real>;
  using Cx = Kokkos::complex<Real>;
  using Mem = typename Exec::memory_space;
  using RealRows = Kokkos::View<Real**, Kokkos::LayoutRight, Mem>;
  using ComplexRows = Kokkos::View<Cx**, Kokkos::LayoutRight, Mem>;
  static constexpr const char* kLibrary = std::is_same<Real, float>::value ? "FFTW3 (fftwf)" : "FFTW3 (fftw)";

  RealFft(std::int64_t n, std::int64_t batch) : n_(n), batch_(batch) {
    static_assert(sizeof(Cx) == sizeof(typename Api::Complex), "Kokkos::complex must match FFTW's complex");
    std::lock_guard<std::mutex> lock(fftw_planner_lock());
    // FFTW_ESTIMATE does not touch the arrays; scratch rows give the planner the strides and alignment class.
    RealRows r("fft_plan_real", 1, n);
    ComplexRows c("fft_plan_complex", 1, n / 2 + 1);
    fwd_ = Api::r2c(int(n), r.data(), reinterpret_cast<typename Api::Complex*>(c.data()));
    inv_ = Api::c2r(int(n), reinterpret_cast<typename Api::Complex*>(c.data()), r.data());
    if (!fwd_ || !inv_) throw std::runtime_error("FFTW could not plan a real FFT of length " + std::to_string(n));
  }
  ~RealFft() {
    std::lock_guard<std::mutex> lock(fftw_planner_lock());
    Api::destroy(fwd_);
    Api::destroy(inv_);
  }
  RealFft(const RealFft&) = delete;
  RealFft& operator=(const RealFft&) = delete;

  std::int64_t length() const { return n_; }
  std::int64_t batch() const { return batch_; }

  void forward(const RealRows& in, const ComplexRows& out, std::int64_t rows = -1) const {
    const auto p = fwd_;
    each_row(rows, [=](std::int64_t b) {
      Api::exec_r2c(p, &in(b, 0), reinterpret_cast<typename Api::Complex*>(&out(b, 0)));
    });
  }
  void inverse(const ComplexRows& in, const RealRows& out, std::int64_t rows = -1) const {
    const auto p = inv_;
    each_row(rows, [=](std::int64_t b) {
      Api::exec_c2r(p, reinterpret_cast<typename Api::Complex*>(&in(b, 0)), &out(b, 0));
    });
  }

 private:
  template <class F>
  void each_row(std::int64_t rows, const F& f) const {
    const std::int64_t r = rows < 0 ? batch_ : rows;
    Kokkos::parallel_for("kbrain::fft::rows", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, r), f);
    Exec().fence();
  }
  std::int64_t n_, batch_;
  typename Api::Plan fwd_{}, inv_{};
};

#if defined(KOKKOS_ENABLE_CUDA)
// CUDA: cuFFT, one batched plan per direction on the execution space's stream.
template <class Real>
class RealFft<Kokkos::Cuda, Real, void> {
 public:
  using Cx = Kokkos::complex<Real>;
  using Mem = Kokkos::CudaSpace;
  using RealRows = Kokkos::View<Real**, Kokkos::LayoutRight, Mem>;
  using ComplexRows = Kokkos::View<Cx**, Kokkos::LayoutRight, Mem>;
  static constexpr bool kSingle = std::is_same<Real, float>::value;
  static constexpr const char* kLibrary = kSingle ? "cuFFT (R2C/C2R)" : "cuFFT (D2Z/Z2D)";

  RealFft(std::int64_t n, std::int64_t batch) : n_(n), batch_(batch) {
    for (int k = 0; k < 2; ++k) {
      int len = int(n);
      const cufftType type = k == 0 ? (kSingle ? CUFFT_R2C : CUFFT_D2Z) : (kSingle ? CUFFT_C2R : CUFFT_Z2D);
      const int idist = k == 0 ? int(n) : int(n / 2 + 1), odist = k == 0 ? int(n / 2 + 1) : int(n);
      check(cufftPlanMany(&plan_[k], 1, &len, &len, 1, idist, &len, 1, odist, type, int(batch)), "cufftPlanMany");
      check(cufftSetStream(plan_[k], Kokkos::Cuda().cuda_stream()), "cufftSetStream");
    }
  }
  ~RealFft() {
    for (auto& p : plan_) cufftDestroy(p);
  }
  RealFft(const RealFft&) = delete;
  RealFft& operator=(const RealFft&) = delete;

  std::int64_t length() const { return n_; }
  std::int64_t batch() const { return batch_; }

  // cuFFT's batched plans always transform `batch` rows; rows past `rows` hold whatever the buffers hold.
  void forward(const RealRows& in, const ComplexRows& out, std::int64_t = -1) const {
    if constexpr (kSingle)
      check(cufftExecR2C(plan_[0], reinterpret_cast<cufftReal*>(in.data()), reinterpret_cast<cufftComplex*>(out.data())), "cufftExecR2C");
    else
      check(cufftExecD2Z(plan_[0], reinterpret_cast<cufftDoubleReal*>(in.data()), reinterpret_cast<cufftDoubleComplex*>(out.data())), "cufftExecD2Z");
  }
  void inverse(const ComplexRows& in, const RealRows& out, std::int64_t = -1) const {
    if constexpr (kSingle)
      check(cufftExecC2R(plan_[1], reinterpret_cast<cufftComplex*>(in.data()), reinterpret_cast<cufftReal*>(out.data())), "cufftExecC2R");
    else
      check(cufftExecZ2D(plan_[1], reinterpret_cast<cufftDoubleComplex*>(in.data()), reinterpret_cast<cufftDoubleReal*>(out.data())), "cufftExecZ2D");
  }

 private:
  static void check(cufftResult r, const char* what) {
    if (r != CUFFT_SUCCESS) throw std::runtime_error(std::string(what) + " failed (cufftResult " + std::to_string(int(r)) + ")");
  }
  std::int64_t n_, batch_;
  cufftHandle plan_[2]{};
};
#endif

// The smallest power of two >= n (the study padded its FFT lengths so: 400 000 -> 2^19).
inline std::int64_t next_pow2(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace kbrain::galbraith
