#!/usr/bin/env bash
# The host test suite under AddressSanitizer + UndefinedBehaviorSanitizer (docs/testing.md).
#   scripts/sanitize.sh [ctest args...]    default: the doctest suites (host + serial) and the command-line tests
# Builds build/sanitize: GCC, Serial backend only, portable code (KBRAIN_NATIVE_ARCH=OFF), -O1 -g with assertions on,
# and only the executables the chosen tests run. Serial only: the OpenMP backend would double the compile time of
# the test suite, and the OpenMP code paths run the same kernels (ctest's io_model.openmp etc. cover them unsanitized).
#   KBRAIN_JOBS           parallel build jobs (default: nproc)
#   KBRAIN_SANITIZE_DIR   build folder (default: <repo>/build/sanitize)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KBRAIN_SANITIZE_DIR:-$here/build/sanitize}"
jobs="${KBRAIN_JOBS:-$(nproc)}"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  -DKBRAIN_KOKKOS_SOURCE="${KBRAIN_DEPS_DIR:-$here/.deps}/kokkos" -DKBRAIN_SANITIZE=address,undefined \
  -DKBRAIN_ENABLE_CUDA=OFF -DKBRAIN_ENABLE_OPENMP=OFF -DKBRAIN_NATIVE_ARCH=OFF -DKBRAIN_ENABLE_MPI=OFF \
  -DKBRAIN_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target kbrain_tests kbrain kbrain_galbraith_network
# A report fails the test: UBSan is built without recovery, ASan stops at the first error, LSan reports leaks at exit.
export ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$here/tests/sanitize/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
cd "$build"
if [ $# -eq 0 ]; then set -- -R '\.(host|serial)$|^cli_arguments$|^galbraith_cli$'; fi
ctest --output-on-failure "$@"
