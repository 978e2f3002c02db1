#!/usr/bin/env bash
# Neofytou 2019 (adex_costa) on a GPU machine; each stage is one command of a few minutes at most.
# Usage: scripts/neofytou_gpu.sh STAGE OUT [build folder, default build/cuda]   (after scripts/build.sh cuda or
# scripts/offline_build.sh cuda)
#   tests   ctest: every CUDA entry and every adex entry (Serial, OpenMP, CUDA; NumPy reference; Brian2 savings)
#   copy    the device's copy bandwidth (kbrain_bench copy_bandwidth/cuda and /openmp), the yardstick of the pass
#   mxm     Table 6.1 sizes 1000, 5000, 10 000 on CUDA, float (twice) and double, 1000 steps
#   big     Table 6.3: 20 000^2 x 100 steps on CUDA, float and double (in-core)
#   nxm     Table 6.2's largest point, 1000 inputs x 50 000 targets, CUDA float, 1000 steps
#   ooc     20 000^2 float (6.8 GB in core) streamed through a 3 GB device budget, 20 steps
#   ooc_k40 the issue's out-of-core goal: 20 000^2 float x 100 steps through an 11.5 GB budget (the K40m's memory)
#   cpu     OpenMP (all cores) on 5000^2, 20 steps (the table's 1000 steps would take minutes)
#   probe   the synapse pass alone for 1, 2, 4, 8 rows in flight (bench/lab/adex_pass_probe.cpp; builds it), 10 000^2
#           float and double, 20 000^2 float
# Each run's run.json goes to OUT/<stage>/<case>/; one summary line per run on stdout.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stage="${1:?stage: tests | copy | mxm | big | nxm | ooc | ooc_k40 | cpu | probe}"
out="${2:?output folder}"
build="${3:-$here/build/cuda}"
kb="$build/experiments/program/kbrain"
export OMP_PROC_BIND=spread OMP_PLACES=threads KBRAIN_NO_PROGRESS=1
mkdir -p "$out/$stage"

summary() {  # run folder -> one line
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/run.json"))
syn, steps, s = r["synapses"], r["steps"], r["simulate_s"]
moved = (4 if r["precision"] == "float" else 8) * 8 + 1  # R, u, U, A read and written + the connection byte
print(f'{r["backend"]:6} {r["precision"]:6} {r["neurons"]:>6} neurons {syn:.3g} synapses {steps} steps: '
      f'simulate {s:.4g} s, setup {r["setup_s"]:.3g} s, {syn * steps / s:.4g} synapse-steps/s, '
      f'{syn * steps * moved / s / 1e9:.1f} GB/s at {moved} B per synapse-step')
PY
}

run() {  # case name, kbrain run args...
  local name="$1"; shift
  local dir="$out/$stage/$name"
  if "$kb" run "$@" -o "$dir" >"$dir.log" 2>&1; then echo "$name: $(summary "$dir")"; else echo "$name FAILED: $(tail -3 "$dir.log")"; fi
}

t61="$here/experiments/neofytou_t6_1_mxm.toml"
case "$stage" in
  tests) (cd "$build" && ctest -R 'adex|\.cuda' --output-on-failure -j 4 2>&1 | tail -40) ;;
  copy)  "$build/bench/kbrain_bench" --benchmark_filter='copy_bandwidth/(cuda|openmp)' --benchmark_min_time=0.5 2>&1 | tail -8 ;;
  mxm)
    for n in 1000 5000; do run "mxm${n}_float" "$t61" -b cuda -p float --size "$n"; done
    run mxm10000_float "$t61" -b cuda -p float --size 10000
    run mxm10000_double "$t61" -b cuda -p double --size 10000
    run mxm10000_float_again "$t61" -b cuda -p float --size 10000 ;;
  big)
    run mxm20000_float "$here/experiments/neofytou_t6_3_20k.toml" -b cuda -p float
    run mxm20000_double "$here/experiments/neofytou_t6_3_20k.toml" -b cuda -p double ;;
  ooc) run mxm20000_float_budget3GB "$here/experiments/neofytou_t6_3_20k.toml" -b cuda -p float --steps 20 \
         --device-budget 3e9
       python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('streamed', r.get('streamed_bytes_per_s', 0) / 1e9, 'GB/s;', r['synapse_pass'])" \
         "$out/$stage/mxm20000_float_budget3GB/run.json" ;;
  ooc_k40) run mxm20000_float_budget11.5GB "$here/experiments/neofytou_t6_3_20k.toml" -b cuda -p float \
           --device-budget 11.5e9
       python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('streamed', r.get('streamed_bytes_per_s', 0) / 1e9, 'GB/s;', r['synapse_pass'])" \
         "$out/$stage/mxm20000_float_budget11.5GB/run.json" ;;
  probe)
    cmake --build "$build" --target adex_pass_probe -j "$(nproc)" >"$out/$stage/build.log" 2>&1 || tail -5 "$out/$stage/build.log"
    "$build/bench/adex_pass_probe" 10000 both
    "$build/bench/adex_pass_probe" 20000 float ;;
  nxm) run nxm1000x50000_float "$here/experiments/neofytou_t6_2_nxm.toml" -b cuda -p float --density 1000 --size 50000 ;;
  cpu)
    run mxm5000_openmp_float "$t61" -b openmp -p float --size 5000 --steps 20
    run mxm5000_openmp_double "$t61" -b openmp -p double --size 5000 --steps 20 ;;
esac
