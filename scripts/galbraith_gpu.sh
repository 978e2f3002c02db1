#!/usr/bin/env bash
# Galbraith 2010 (galbraith_lif) on a GPU machine; each stage is one command of a few minutes at most.
# Usage: scripts/galbraith_gpu.sh STAGE OUT [build folder, default build/cuda]   (after scripts/build.sh cuda or
# scripts/offline_build.sh cuda)
#   tests    ctest: every galbraith entry (Serial, OpenMP, CUDA)
#   largest  every sweep's largest network, 40 000 steps, float, event-driven and agent (UPDATES="event agent"), CUDA
#   stages   the same with simulation.stage_timing (fenced stage times; slower runs)
#   tables   kbrain compare GB-1..GB-4 on CUDA and OpenMP (all cores), float, 4000 steps (1 s of biology; the
#            40 000-step figures of the largest sizes come from `largest`); OpenMP steps cut further by the budget
#   threads  kbrain compare --threads 1,2,4,8,16 on GB-1 (ring) and GB-4 (random), event-driven, at most 4000 steps
# Each run's run.json goes to OUT/<stage>/<case>/; one summary line per run on stdout.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stage="${1:?stage: tests | largest | stages | tables | threads}"
out="${2:?output folder}"
build="${3:-$here/build/cuda}"
kb="$build/experiments/program/kbrain"
export OMP_PROC_BIND=spread OMP_PLACES=threads KBRAIN_NO_PROGRESS=1
mkdir -p "$out/$stage"
ex="$here/experiments"

summary() {  # run folder -> one line
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/run.json"))
stages = " ".join(f'{k[6:-2]} {r[k] / r["steps"] * 1e6:.3g}' for k in sorted(r) if k.startswith("stage_") and k.endswith("_s"))
print(f'{r["backend"]:6} {r["precision"]:6} {r["neurons"]:>7} neurons {r["synapses"]:>8.0f} synapses {r["steps"]} steps: '
      f'simulate {r["simulate_s"]:.4g} s ({r["simulate_s"] / r["steps"] * 1e6:.3g} us/step), setup {r["setup_s"]:.3g} s, '
      f'spikes {r.get("neuron_spikes", 0):.0f}' + (f'; stage us/step: {stages}' if stages else ''))
PY
}

run() {  # case name, kbrain run args...
  local name="$1"; shift
  local dir="$out/$stage/$name"
  if "$kb" run "$@" -o "$dir" --no-plots >"$dir.log" 2>&1; then echo "$name: $(summary "$dir")"; else echo "$name FAILED: $(tail -3 "$dir.log")"; fi
}

staged() {  # experiment -> a copy with stage_timing = true in [simulation]
  local copy="$out/$stage/$(basename "$1" .toml)_staged.toml"
  sed '/^\[simulation\]/a stage_timing = true' "$1" > "$copy"
  echo "$copy"
}

largest() {  # $1: "" or "staged"
  for update in ${UPDATES:-event agent}; do
    local e1="$ex/galbraith_gb1_ring.toml" e2="$ex/galbraith_gb2_full.toml" e3="$ex/galbraith_gb3_random.toml" e4="$ex/galbraith_gb4_random.toml"
    if [ "$1" = staged ]; then e1=$(staged "$e1"); e2=$(staged "$e2"); e3=$(staged "$e3"); e4=$(staged "$e4"); fi
    run "gb1_ring500000_${update}" "$e1" -b cuda -p float --size 500000 --variant "$update"
    run "gb2_full1000_${update}" "$e2" -b cuda -p float --size 1000 --variant "$update"
    run "gb3_random1000_S1e6_${update}" "$e3" -b cuda -p float --density 1000000 --variant "$update"
    run "gb4_random500000_S5e5_${update}" "$e4" -b cuda -p float --size 500000 --variant "$update"
  done
}

case "$stage" in
  tests) (cd "$build" && ctest -R 'galbraith' --output-on-failure -j 4 2>&1 | tail -30) ;;
  largest) largest "" ;;
  stages) largest staged ;;
  tables)
    for g in gb1_ring gb2_full gb3_random gb4_random; do
      "$kb" compare "$ex/galbraith_$g.toml" --backends cuda,openmp --precisions float --steps 4000 --max-slow-cell-steps 200000000 \
        -o "$out/$stage/$g" --no-plots > "$out/$stage/$g.log" 2>&1 || echo "$g FAILED"
      sed -n '/^| size/,$p' "$out/$stage/$g/compare.md" | cut -c1-400
    done ;;
  threads)
    "$kb" compare "$ex/galbraith_gb1_ring.toml" --threads 1,2,4,8,16 --sizes 10000,50000,500000 --steps 4000 \
      --precisions float --variants event --max-slow-cell-steps 100000000 -o "$out/$stage/gb1" > "$out/$stage/gb1.log" 2>&1
    tail -16 "$out/$stage/gb1/thread_scaling.md"
    "$kb" compare "$ex/galbraith_gb4_random.toml" --threads 1,2,4,8,16 --sizes 10000,100000,500000 --steps 4000 \
      --precisions float --variants event --max-slow-cell-steps 100000000 -o "$out/$stage/gb4" > "$out/$stage/gb4.log" 2>&1
    tail -16 "$out/$stage/gb4/thread_scaling.md" ;;
esac
