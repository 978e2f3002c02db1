#!/usr/bin/env bash
# Tries GPU launch bounds for the IO step kernel: rebuilds kbrain_bench in an existing CUDA build folder with each
# "max_threads,min_blocks" pair and runs the 1M-cell IO step benchmarks. Results: $2/tune_<pair>.txt
#   scripts/tune_launch_bounds.sh BUILD_DIR OUT_DIR [pairs...]     (default pairs: 0,0 256,4 128,8 256,5)
# The build's configured pair (default 256,6) is restored afterwards.
set -uo pipefail
build="$1"; out="$2"; shift 2
pairs=("$@")
[ ${#pairs[@]} -gt 0 ] || pairs=(0,0 256,4 128,8 256,5)
mkdir -p "$out"
# the configured pair, restored at the end
saved_t="$(sed -n 's/^KBRAIN_IO_MAX_THREADS:STRING=//p' "$build/CMakeCache.txt")"
saved_b="$(sed -n 's/^KBRAIN_IO_MIN_BLOCKS:STRING=//p' "$build/CMakeCache.txt")"
for p in "${pairs[@]}"; do
  t="${p%,*}"; b="${p#*,}"
  cmake "$build" -DKBRAIN_IO_MAX_THREADS="$t" -DKBRAIN_IO_MIN_BLOCKS="$b" >/dev/null
  cmake --build "$build" -j "$(nproc)" --target kbrain_bench >"$out/tune_build_${t}_${b}.log" 2>&1 || { echo "build $p failed"; continue; }
  echo "== launch bounds $p"
  "$build/bench/kbrain_bench" --benchmark_filter="${KBRAIN_BENCH_FILTER:-io_step/cuda/.*/1024x1024/mesh}" \
    --benchmark_min_time=0.3 2>/dev/null | grep -E "io_step|copy" | tee "$out/tune_${t}_${b}.txt"
done
cmake "$build" -DKBRAIN_IO_MAX_THREADS="${saved_t:-256}" -DKBRAIN_IO_MIN_BLOCKS="${saved_b:-6}" >/dev/null
