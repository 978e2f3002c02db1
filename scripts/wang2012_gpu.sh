#!/usr/bin/env bash
# Wang 2012 (cortex_hh) on a GPU machine: tests, kernel benchmarks, the 1M x 200 target, Tables II-V, accuracy.
# Usage: scripts/wang2012_gpu.sh [build folder, default build/cuda]   (after scripts/build.sh cuda)
# Writes out/wang2012/*. Each step is independent; comment out what you do not need.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build/cuda}"
kb="$build/experiments/kbrain"
out="$here/out/wang2012"
mkdir -p "$out"
export OMP_PROC_BIND=spread OMP_PLACES=threads KBRAIN_NO_PROGRESS=1
cd "$build" && ctest -R cortex_hh --output-on-failure | tee "$out/ctest.txt"; cd "$here"
"$build/bench/kbrain_bench" --benchmark_filter='cortex_step/cuda/' --benchmark_out="$out/bench_cuda.json" \
  --benchmark_out_format=json | tee "$out/bench_cuda.txt"
# the target: 1M neurons x 200 synapses, 1 s of biology, EAI+LUT+TPM, float (goal <= 2 s simulate on one H200)
"$kb" run experiments/wang2012_1m.toml -b cuda -o "$out/run_1m" | tee "$out/run_1m.txt"
# Tables II-IV (CPU rows run fewer steps beyond max_slow_neuron_steps; the table says so)
for m in basic eai eai_lut all; do
  "$kb" compare "experiments/wang2012_t2_$m.toml" --backends cuda,openmp -o "$out/t2_$m" | tee "$out/t2_$m.txt"
done
# Table V: HH (All) vs Izhikevich, M = 100
"$kb" compare experiments/wang2012_t5_hh.toml --backends cuda -o "$out/t5_hh" | tee "$out/t5_hh.txt"
"$kb" compare experiments/wang2012_t5_izhikevich.toml --backends cuda -o "$out/t5_izh" | tee "$out/t5_izh.txt"
# accuracy on the GPU (reference: forward Euler 0.001 ms, double, same backend)
"$kb" accuracy experiments/wang2012.toml -b cuda --size 4000 --ms 1000 \
  --methods fe,fe+float,fe+eai+float,fe+eai+lut+float,fe+eai+lut+tpm+float,fe+eai+lut+tpm \
  -o "$out/accuracy_cuda.md" | tee "$out/accuracy_cuda.txt"
