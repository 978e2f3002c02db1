#!/usr/bin/env bash
# Issue 3's Gaussian 3-D figures on a CUDA build: the gap-kernel benchmarks (fused, split, tiled cuts) on the
# Gaussian networks, then the whole 4 194 304 x 1000 run (generate + setup + 2000 steps) in float and double.
#   scripts/io_gaussian_gpu.sh [out-dir]        (binaries from ${KBRAIN_BUILD:-build/cuda})
# Run from the repository root; docs/performance.md records the results.
set -u
out="${1:-out/gaussian}"
build="${KBRAIN_BUILD:-build/cuda}"
mkdir -p "$out"
rc=0
"$build/bench/kbrain_bench" --benchmark_min_time=0.2 \
  --benchmark_filter="${KBRAIN_BENCH_FILTER:-io_step_generated/cuda/.*/gaussian3d/}" \
  --benchmark_out="$out/bench_gaussian.json" --benchmark_out_format=json 2>&1 | tee "$out/bench_gaussian.txt" || rc=1
for prec in ${KBRAIN_PRECISIONS:-float double}; do
  sed -e 's/^cells = 65536/cells = 4194304/' -e 's/^density = 100/density = 1000/' \
    -e "s/^precision = \"double\"/precision = \"$prec\"/" experiments/io_vdvlag_gaussian.toml > "$out/g4m_$prec.toml"
  KBRAIN_NO_PROGRESS=1 "$build/experiments/program/kbrain" run "$out/g4m_$prec.toml" -b cuda -o "$out/run_$prec" 2>&1 |
    tee "$out/run_$prec.txt" || rc=1
  rm -f "$out/run_$prec"/spikes.csv  # tens of MB; the count is in run.json
done
exit $rc
