#!/usr/bin/env bash
# Installs the system packages kbrain builds with (Debian/Ubuntu, apt-get) and obtains Kokkos.
# Idempotent: does nothing that is already done. Run as root or with sudo available.
#   KBRAIN_DEPS_DIR  where the patched Kokkos source is cached (default: <repo>/.deps)
#   KBRAIN_SKIP_APT=1  skip apt-get entirely (e.g. on the GPU machine, which has no network)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

packages=(cmake g++ make ninja-build ccache pkg-config libfmt-dev libtomlplusplus-dev doctest-dev libbenchmark-dev
          libcli11-dev librandom123-dev dpkg-dev xz-utils
          libopenmpi-dev openmpi-bin   # optional MPI build (-DKBRAIN_ENABLE_MPI=ON, docs/mpi.md)
          python3-brian python3-numpy python3-scipy  # Brian2: tests/brian2 (numpy target), bench/peers (C++ standalone, g++)
          python3-matplotlib  # pictures of runs and comparisons (scripts/plots, kbrain plot)
          libopenblas-dev liblapack-dev  # the host BLAS/LAPACK behind Kokkos Kernels (GEMM, solves)
          libstb-dev  # image files: SOM inputs (BMP/PNG/PPM) and weight pictures (PNG)
          libfftw3-dev  # FFTW3: the Galbraith decoder's host FFT (cmake/KbrainSignal.cmake)
          libhdf5-dev python3-h5py  # SONATA spike files (spikes.h5) and their test (tests/sonata)
          clang libclang-rt-dev)  # fuzz targets (scripts/fuzz.sh): libFuzzer and clang's sanitizer runtimes are in
                                  # libclang-rt-dev (libclang-rt-14-dev on Debian 12), not in the clang package
packages+=(clang-14 libclang-rt-14-dev libomp-14-dev)  # race check (scripts/race_check.sh): clang++-14, its TSan
                                                       # runtime, LLVM's libomp and Archer (libarcher.so)

missing=()
if [ "${KBRAIN_SKIP_APT:-0}" != 1 ] && command -v dpkg-query >/dev/null; then
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "[setup] installing: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  fi
fi

"$here/scripts/fetch_kokkos.sh"
