#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang) and fuzzes every reader with its seed corpus (docs/testing.md).
#   scripts/fuzz.sh [SECONDS | -runs=N] [TARGET...]
#     SECONDS   wall time per target (default 30)      -runs=N   N executions per target (the long run: -runs=1000000)
#     TARGET    names from tests/fuzz/CMakeLists.txt (default: all), e.g. edge_list image
#   KBRAIN_FUZZ_JOBS  targets fuzzed at once (default: nproc)
#   KBRAIN_FUZZ_ARGS  more libFuzzer flags, e.g. "-max_total_time=600" to cap a -runs=N run
#   KBRAIN_FUZZ_DIR   build folder (default: <repo>/build/fuzz)
# New inputs go to <build>/corpus/<target> (the committed seeds in tests/fuzz/corpus/<target> are only read);
# a crash, leak, sanitizer report, timeout (10 s) or out-of-memory (2 GB) leaves its input in <build>/findings and
# fails the script. Reproduce one with: <build>/fuzz_<target> <file>. Per-target logs: <build>/logs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$here/scripts/lib/common.sh"
build="${KBRAIN_FUZZ_DIR:-$here/build/fuzz}"
budget="${1:-30}"
shift || true
case "$budget" in
  -runs=*) limit=("$budget") ;;
  *[!0-9]*|'') echo "usage: scripts/fuzz.sh [SECONDS | -runs=N] [TARGET...]" >&2; exit 2 ;;
  *) limit=(-max_total_time="$budget") ;;
esac
read -r -a extra <<<"${KBRAIN_FUZZ_ARGS:-}"
limit+=("${extra[@]}")
cxx="${KBRAIN_FUZZ_CXX:-$(command -v clang++ || true)}"
[ -n "$cxx" ] || { echo "[fuzz] clang++ not found: run scripts/setup_deps.sh" >&2; exit 1; }
# shellcheck disable=SC2046 # the generator is two words or none
cmake -S "$here/tests/fuzz" -B "$build" $(cmake_generator "$build") -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE= >/dev/null
phase "fuzz build" cmake --build "$build" -j "${KBRAIN_JOBS:-$(nproc)}" >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for seeds in "$here"/tests/fuzz/corpus/*/; do targets+=("$(basename "$seeds")"); done
fi
mkdir -p "$build/logs" "$build/findings"
export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export build here
run_one() {
  local t="$1" log="$build/logs/$1.log"
  mkdir -p "$build/corpus/$t"
  if "$build/fuzz_$t" "$build/corpus/$t" "$here/tests/fuzz/corpus/$t" "${@:2}" -max_len=8192 -timeout=10 \
       -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/findings/$t-" >"$log" 2>&1; then
    echo "[fuzz] $t: $(sed -n 's/^stat::number_of_executed_units: *//p' "$log") executions, no finding"
  else
    echo "[fuzz] $t: FAILED (log: $log)"; tail -n 40 "$log"; return 1
  fi
}
export -f run_one
fuzz_all() {
  printf '%s\n' "${targets[@]}" | xargs -P "${KBRAIN_FUZZ_JOBS:-$(nproc)}" -I{} bash -c 'run_one "$@"' _ {} "${limit[@]}"
}
phase "fuzzing" fuzz_all
