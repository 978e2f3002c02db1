#!/usr/bin/env bash
# Configures and builds kbrain. Usage: scripts/build.sh [host|cuda|cuda-check] [extra cmake args...]
#   host: Serial + OpenMP (default)      cuda: Serial + OpenMP + CUDA (needs nvcc; default arch sm_90)
#   cuda-check: the cuda build with host code at -O0, for CI's compile-and-link check where no GPU runs it. nvcc's -O
#               sets the host compiler's level only: the device code (the fatbinary) is byte-identical to the cuda
#               build's, so every device function is still compiled, in half the time (docs/testing.md)
# Build folders: build/host, build/cuda (Ninja when installed; every compile through ccache, cmake/KbrainCompilerCache.cmake). Uses an installed Kokkos if CMake finds one with the needed backends
# (pass -DKokkos_ROOT=...), else the patched bundled Kokkos from scripts/fetch_kokkos.sh.
#   KBRAIN_JOBS    parallel build jobs (default: nproc)
#   KBRAIN_NATIVE  1 (default): compile host code for this machine's CPU (-march=native: AVX2/AVX-512 + FMA for the
#                  SIMD host kernels); 0: portable x86-64 binaries
#   KBRAIN_BENCH   1 (default): the benchmarks too; 0: without them (scripts/test.sh: the tests do not run them, and
#                  the CUDA build compiles every benchmark translation unit)
#   KBRAIN_MPI     auto (default): the MPI runner and its tests when mpicxx and mpiexec are found (setup_deps.sh
#                  installs Open MPI); 1: require MPI; 0: MPI-free build. `kbrain` starts MPI only under mpirun.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$here/scripts/lib/common.sh"
variant="${1:-host}"
shift || true
jobs="${KBRAIN_JOBS:-$(nproc)}"
case "$variant" in
  host) flags=(-DKBRAIN_ENABLE_CUDA=OFF) ;;
  cuda|cuda-check)
    nvcc_bin="$(command -v nvcc || true)"
    [ -n "$nvcc_bin" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc_bin=/usr/local/cuda/bin/nvcc
    if [ -z "$nvcc_bin" ]; then echo "[build] cuda: nvcc not found (install the CUDA toolkit)" >&2; exit 1; fi
    export PATH="$(dirname "$nvcc_bin"):$PATH"
    flags=(-DKBRAIN_ENABLE_CUDA=ON)
    [ "$variant" = cuda ] || flags+=("-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG") ;;
  *) echo "usage: scripts/build.sh [host|cuda|cuda-check] [cmake args...]" >&2; exit 2 ;;
esac
[ "${KBRAIN_NATIVE:-1}" = 1 ] && flags+=(-DKBRAIN_NATIVE_ARCH=ON) || flags+=(-DKBRAIN_NATIVE_ARCH=OFF)
[ "${KBRAIN_BENCH:-1}" = 1 ] && flags+=(-DKBRAIN_BUILD_BENCH=ON) || flags+=(-DKBRAIN_BUILD_BENCH=OFF)
case "${KBRAIN_MPI:-auto}" in
  1) flags+=(-DKBRAIN_ENABLE_MPI=ON) ;;
  0) flags+=(-DKBRAIN_ENABLE_MPI=OFF) ;;
  *) if command -v mpicxx >/dev/null && command -v mpiexec >/dev/null; then flags+=(-DKBRAIN_ENABLE_MPI=ON); fi ;;
esac
build="$here/build/$variant"
# shellcheck disable=SC2046 # the generator is two words or none
cmake -S "$here" -B "$build" $(cmake_generator "$build") -DCMAKE_BUILD_TYPE=Release \
  -DKBRAIN_KOKKOS_SOURCE="${KBRAIN_DEPS_DIR:-$here/.deps}/kokkos" "${flags[@]}" "$@" >&2
phase "$variant build" cmake --build "$build" -j "$jobs" >&2
echo "$build"
