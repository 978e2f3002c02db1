#!/usr/bin/env bash
# The host test suite under AddressSanitizer + UndefinedBehaviorSanitizer (docs/testing.md).
#   scripts/sanitize.sh [ctest args...]    default: every doctest suite (host + serial), then short `kbrain` runs
# Builds build/sanitize: GCC, Serial backend only, portable code (KBRAIN_NATIVE_ARCH=OFF), -O1 -g1 (line tables: what the reports print) with assertions on,
# and only kbrain_tests and kbrain. Serial only: the OpenMP backend would double the compile time of the test suite,
# and the OpenMP code paths run the same kernels (the normal build's *.openmp tests cover them). The command-line
# tests (cli_arguments, galbraith_cli) need OpenMP, so the program is checked by a few short runs instead.
#   KBRAIN_JOBS           parallel build jobs (default: nproc)
#   KBRAIN_SANITIZE_DIR   build folder (default: <repo>/build/sanitize)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$here/scripts/lib/common.sh"
build="${KBRAIN_SANITIZE_DIR:-$here/build/sanitize}"
jobs="${KBRAIN_JOBS:-$(nproc)}"
# shellcheck disable=SC2046 # the generator is two words or none
cmake -S "$here" -B "$build" $(cmake_generator "$build") -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DKBRAIN_KOKKOS_SOURCE="${KBRAIN_DEPS_DIR:-$here/.deps}/kokkos" -DKBRAIN_SANITIZE=address,undefined \
  -DKBRAIN_ENABLE_CUDA=OFF -DKBRAIN_ENABLE_OPENMP=OFF -DKBRAIN_NATIVE_ARCH=OFF -DKBRAIN_ENABLE_MPI=OFF \
  -DKBRAIN_BUILD_BENCH=OFF >/dev/null
phase "sanitizer build" cmake --build "$build" -j "$jobs" --target kbrain_tests kbrain
# A report fails the test: UBSan is built without recovery, ASan stops at the first error, LSan reports leaks at exit.
asan="detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1"
export ASAN_OPTIONS="$asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$here/tests/sanitize/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
cd "$build"
# The reference tests (label reference) are Python programs around other executables: left out.
if [ $# -eq 0 ]; then set -- -R '\.(host|serial)$' -LE reference; fi
# Every step returns its own failure: inside phase (a || list) set -e does not stop the function.
sanitizer_tests() {
  ctest --output-on-failure -j "${KBRAIN_TEST_JOBS:-$(nproc)}" "$@" || return
  # The program end to end (options, output folder, recorders, run.json): one short run per model family.
  local kbrain="$build/experiments/program/kbrain" experiment
  "$kbrain" backends >/dev/null || return
  "$kbrain" models >/dev/null || return
  for experiment in io_all2all10 cuba neofytou_t6_1_mxm galbraith_gb1_ring galbraith_som_small; do
    "$kbrain" run "$here/experiments/$experiment.toml" --steps 100 --no-plots -o "$build/smoke/$experiment" \
      >/dev/null || return
  done
}
phase "sanitizer tests" sanitizer_tests "$@"
echo "[sanitize] tests and short runs passed under ASan + UBSan"
