#!/usr/bin/env bash
# The OpenMP test suites under ThreadSanitizer with Archer, LLVM's OpenMP race detector (docs/testing.md,
# "Race detector").
#   scripts/race_check.sh [ctest args...]    default: every ctest entry whose name ends in .openmp
# Builds build/race: clang++-14, the host backends (no CUDA, MPI, benchmarks), -fsanitize=thread -fopenmp, -O1 -g1,
# and only kbrain_tests (+ the probe). Serial stays compiled in: the OpenMP suites compare against SerialBackend runs.
# clang's -fopenmp links LLVM's libomp; Archer (libarcher.so, loaded by libomp as an OMPT tool) tells TSan about
# OpenMP's barriers, tasks and reductions, so that libomp itself needs no instrumentation.
# Any ThreadSanitizer report fails the run (halt_on_error, exit code 66). Two deliberate races must be reported (a
# plain OpenMP loop before the build, a Kokkos kernel after it): a detector that is silently inactive fails the script.
#   KBRAIN_JOBS             parallel build jobs (default: nproc)
#   KBRAIN_RACE_DIR         build folder (default: <repo>/build/race)
#   KBRAIN_RACE_CXX         the compiler (default: clang++-14)
#   KBRAIN_RACE_THREADS     OMP_NUM_THREADS for the suites (default: 2; 4 splits the work otherwise, at about three
#                           times the time on 2 cores)
#   KBRAIN_TEST_JOBS        suites run at once (default: nproc)
#   KBRAIN_ARCHER           libarcher.so (default: /usr/lib/llvm-14/lib/libarcher.so)
# Suppressions (each with its reason): tests/sanitize/tsan.supp.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$here/scripts/lib/common.sh"
build="${KBRAIN_RACE_DIR:-$here/build/race}"
jobs="${KBRAIN_JOBS:-$(nproc)}"
cxx="${KBRAIN_RACE_CXX:-clang++-14}"
archer="${KBRAIN_ARCHER:-/usr/lib/llvm-14/lib/libarcher.so}"
command -v "$cxx" >/dev/null || { echo "[race] $cxx not found (scripts/setup_deps.sh installs clang-14)" >&2; exit 1; }
[ -f "$archer" ] || { echo "[race] $archer not found (Debian: libomp-14-dev)" >&2; exit 1; }
symbolizer="$(dirname "$(readlink -f "$(command -v "$cxx")")")/llvm-symbolizer"

# TSan: stop at the first report and fail with exit code 66; ignore the accesses of uninstrumented libraries (libomp,
# OpenBLAS, libstdc++'s compiled part), whose synchronisation Archer and TSan's interceptors supply.
tsan="halt_on_error=1:exitcode=66:ignore_noninstrumented_modules=1:history_size=4"
tsan+=":suppressions=$here/tests/sanitize/tsan.supp"
[ -x "$symbolizer" ] && tsan+=":external_symbolizer_path=$symbolizer"
export TSAN_OPTIONS="$tsan${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
export OMP_TOOL_LIBRARIES="$archer"
export ARCHER_OPTIONS="${ARCHER_OPTIONS:-verbose=1}"

# expect_race NAME COMMAND...: COMMAND must be stopped by a ThreadSanitizer data-race report with Archer active,
# else the detector is not live and a passing run would prove nothing.
expect_race() {
  local name="$1" log="$build/$1.log" rc=0
  shift
  OMP_NUM_THREADS=2 "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" != 66 ] || ! grep -q 'WARNING: ThreadSanitizer: data race' "$log" \
     || ! grep -q '^Archer detected' "$log"; then
    echo "[race] the detector is not live: $name, a deliberate race, was not reported (exit $rc, log: $log)" >&2
    cat "$log" >&2
    return 1
  fi
  echo "[race] detector live: $name's deliberate race was reported (ThreadSanitizer + Archer)"
}

# The toolchain: a racy OpenMP loop built with the same flags (seconds, before the long build).
race_probe() {
  local probe="$build/race_probe"
  mkdir -p "$build"
  printf '%s\n' '#include <cstdio>' 'int main() {' '  int counter = 0;' '#pragma omp parallel for num_threads(2)' \
    '  for (int i = 0; i < 100000; ++i) counter += i;  // unsynchronised read-modify-write' \
    '  std::printf("%d\n", counter);' '  return 0;' '}' >"$probe.cpp"
  "$cxx" -fsanitize=thread -fopenmp -O1 -g1 "$probe.cpp" -o "$probe" || return
  expect_race openmp_probe "$probe"
}

# (Inside phase, set -e does not apply: each step returns its failure itself.)
configure_and_build() {
  race_probe || return
  # shellcheck disable=SC2046 # the generator is two words or none
  cmake -S "$here" -B "$build" $(cmake_generator "$build") -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
    -DKBRAIN_KOKKOS_SOURCE="${KBRAIN_DEPS_DIR:-$here/.deps}/kokkos" -DKBRAIN_USE_BUNDLED_KOKKOS=ON \
    -DKBRAIN_SANITIZE=thread -DKBRAIN_ENABLE_SERIAL=ON -DKBRAIN_ENABLE_OPENMP=ON -DKBRAIN_ENABLE_CUDA=OFF \
    -DKBRAIN_ENABLE_MPI=OFF -DKBRAIN_BUILD_BENCH=OFF -DKBRAIN_NATIVE_ARCH=OFF >/dev/null || return
  cmake --build "$build" -j "$jobs" --target kbrain_tests kbrain_race_probe || return
  # The build: a Kokkos kernel on the OpenMP backend with a deliberate race (tests/sanitize/race_probe.cpp).
  expect_race kokkos_probe "$build/tests/kbrain_race_probe"
}
phase "race build" configure_and_build

# The reference tests (label reference: Python around kbrain_adex_dump) are left out, as in scripts/sanitize.sh.
if [ $# -eq 0 ]; then set -- -R '\.openmp$' -LE reference; fi
race_tests() {
  cd "$build" || return
  # Two threads and as many suites at once as cores: TSan's happens-before analysis needs no collision in time, and
  # the suites' single-threaded parts (the Serial references they compare against) overlap. OpenMP threads wait
  # passively (tests/CMakeLists.txt), so suites sharing the cores do not spin against each other.
  OMP_NUM_THREADS="${KBRAIN_RACE_THREADS:-2}" ctest --output-on-failure -j "${KBRAIN_TEST_JOBS:-$(nproc)}" "$@"
}
phase "race tests" race_tests "$@"
echo "[race] the OpenMP suites passed under ThreadSanitizer + Archer"
