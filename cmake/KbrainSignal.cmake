# Signal processing: FFTW3 (Debian libfftw3-dev) for the host FFT, cuFFT for CUDA builds (the Galbraith decoder's
# convolutions, models/galbraith_decoder/decoder_fft.hpp). Defines kbrain_signal (link it to use the FFT interface).
find_path(KBRAIN_FFTW_INCLUDE fftw3.h)
find_library(KBRAIN_FFTW_DOUBLE fftw3)
find_library(KBRAIN_FFTW_FLOAT fftw3f)
if(NOT KBRAIN_FFTW_INCLUDE OR NOT KBRAIN_FFTW_DOUBLE OR NOT KBRAIN_FFTW_FLOAT)
  message(FATAL_ERROR "kbrain: FFTW3 (fftw3.h, libfftw3, libfftw3f) not found; run scripts/setup_deps.sh "
                      "(Debian: libfftw3-dev)")
endif()
add_library(kbrain_signal INTERFACE)
target_include_directories(kbrain_signal SYSTEM INTERFACE ${KBRAIN_FFTW_INCLUDE})
target_link_libraries(kbrain_signal INTERFACE ${KBRAIN_FFTW_FLOAT} ${KBRAIN_FFTW_DOUBLE})
if(KBRAIN_ENABLE_CUDA)
  find_package(CUDAToolkit REQUIRED)
  target_link_libraries(kbrain_signal INTERFACE CUDA::cufft)
endif()
message(STATUS "kbrain: FFT: FFTW3 (${KBRAIN_FFTW_DOUBLE}), cuFFT: ${KBRAIN_ENABLE_CUDA}")
