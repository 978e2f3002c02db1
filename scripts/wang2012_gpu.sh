#!/usr/bin/env bash
# Wang 2012 (cortex_hh) on a GPU machine, in order of priority; each stage is one command of a few minutes at most.
# Usage: scripts/wang2012_gpu.sh STAGE [METHOD] [build folder, default build/cuda]   (after scripts/build.sh cuda)
#   tests     ctest suite cortex_hh (Serial, OpenMP, CUDA)                                     ~1-3 min
#   target    the 1M x 200 target, 1 s, EAI+LUT+TPM, float on CUDA (goal: simulate <= 2 s)   ~1-2 min (host build
#             of the 200M-synapse network included)
#   bench     kernel benchmarks cortex_step/cuda/float/<method>/1000000                       ~2-4 min
#   table2 M  Tables II-III on CUDA at 200k and 1M for M = basic | eai | eai_lut | all       ~1-2 min each
#   table4    Table IV: All on OpenMP vs CUDA at 200k (OpenMP: fewer steps, the table says so) ~2-4 min
#   table5    Table V: HH All vs Izhikevich, M = 100, 100k and 240k on CUDA                   ~1-2 min
#   accuracy  accuracy on CUDA, N = 4000, 1 s (reference: forward Euler 0.001 ms, double)    ~2-4 min
# Outputs go to out/wang2012/<stage>*.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stage="${1:?stage: tests | target | bench | table2 METHOD | table4 | table5 | accuracy}"
method=""
if [ "$stage" = table2 ]; then method="${2:?table2 needs basic | eai | eai_lut | all}"; shift; fi
build="${2:-$here/build/cuda}"
kb="$build/experiments/program/kbrain"
out="$here/out/wang2012"
mkdir -p "$out"
export OMP_PROC_BIND=spread OMP_PLACES=threads KBRAIN_NO_PROGRESS=1
cd "$here"
case "$stage" in
  tests) (cd "$build" && ctest -R cortex_hh --output-on-failure) | tee "$out/tests.txt" ;;
  target) "$kb" run experiments/wang2012_1m.toml -b cuda -o "$out/target" | tee "$out/target.txt" ;;
  bench) "$build/bench/kbrain_bench" --benchmark_filter='cortex_step/cuda/float/.*/1000000' \
           --benchmark_min_time=1 --benchmark_out="$out/bench.json" --benchmark_out_format=json | tee "$out/bench.txt" ;;
  table2) "$kb" compare "experiments/wang2012_t2_$method.toml" --backends cuda --sizes 200000,1000000 \
            -o "$out/table2_$method" | tee "$out/table2_$method.txt" ;;
  table4) "$kb" compare experiments/wang2012_t2_all.toml --backends cuda,openmp --sizes 200000 -o "$out/table4" \
            | tee "$out/table4.txt" ;;
  table5)
    "$kb" compare experiments/wang2012_t5_hh.toml --backends cuda --sizes 100000,240000 -o "$out/table5_hh" \
      | tee "$out/table5_hh.txt"
    "$kb" compare experiments/wang2012_t5_izhikevich.toml --backends cuda --sizes 100000,240000 -o "$out/table5_izh" \
      | tee "$out/table5_izh.txt" ;;
  accuracy)
    "$kb" accuracy experiments/wang2012.toml -b cuda --size 4000 --ms 1000 \
      --methods fe,fe+float,fe+eai+float,fe+eai+lut+float,fe+eai+lut+tpm+float,fe+eai+lut+tpm \
      -o "$out/accuracy.md" | tee "$out/accuracy.txt" ;;
  *) echo "unknown stage $stage" >&2; exit 2 ;;
esac
