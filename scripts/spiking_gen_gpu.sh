#!/usr/bin/env bash
# Spiking networks generated on the backend (issue 25) on a GPU machine. Usage:
#   scripts/spiking_gen_gpu.sh STAGE [build folder, default build/cuda]     (after scripts/build.sh cuda)
#   tests    ctest: network generation, spiking core, point neurons, cortex_hh, spiking config (every backend)
#   cobahh   COBAHH 1M x 200, 1 s of biology, float on CUDA: generate / setup / simulate
#   wang     Wang 2012 1M x 200, 1 s, EAI+LUT+TPM, float on CUDA
#   host     generation of the COBAHH 1M x 200 network on Serial and on OpenMP (one step simulated)
# Outputs go to out/spiking_gen/<stage>*.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stage="${1:?stage: tests | cobahh | wang | host}"
build="${2:-$here/build/cuda}"
kb="$build/experiments/program/kbrain"
out="$here/out/spiking_gen"
mkdir -p "$out"
export OMP_PROC_BIND=spread OMP_PLACES=threads KBRAIN_NO_PROGRESS=1
cd "$here"
phases() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print({k: d.get(k) for k in ('backend','device','synapses','generate_s','generate_draw_s','generate_fill_s','generate_sort_s','generate_values_s','setup_s','simulate_s','spikes')})" "$1/run.json"; }
case "$stage" in
  tests) (cd "$build" && ctest -R 'network_generation|spiking_core|point_neurons|cortex_hh|spiking_config' \
           --output-on-failure) | tee "$out/tests.txt" ;;
  cobahh) "$kb" run experiments/cobahh_1m.toml -b cuda -o "$out/cobahh" --no-plots | tee "$out/cobahh.txt"
          phases "$out/cobahh" | tee -a "$out/cobahh.txt" ;;
  wang) "$kb" run experiments/wang2012_1m.toml -b cuda -o "$out/wang" --no-plots | tee "$out/wang.txt"
        phases "$out/wang" | tee -a "$out/wang.txt" ;;
  host)
    for b in serial openmp; do
      "$kb" run experiments/cobahh_1m.toml -b "$b" --steps 1 -o "$out/host_$b" --no-plots | tee "$out/host_$b.txt"
      phases "$out/host_$b" | tee -a "$out/host_$b.txt"
    done ;;
  *) echo "unknown stage $stage" >&2; exit 2 ;;
esac
