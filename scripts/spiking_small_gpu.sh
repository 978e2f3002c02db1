#!/usr/bin/env bash
# Small spiking networks on a GPU machine (issue 25: a step bound by launches). Usage:
#   scripts/spiking_small_gpu.sh STAGE [build folder, default build/cuda] [reference build folder]
#   tests     ctest: spiking core (replayed vs launched steps), point neurons, network generation, cortex_hh
#   bench     kbrain_bench point_step (replayed steps) and point_step_launched (every kernel launched), CUDA,
#             COBA and COBAHH at 4000 and 64 000 neurons; with a reference build, its point_step interleaved
#   spikes    kbrain run experiments/coba.toml and cobahh.toml (4000 neurons, 1 s) on CUDA in float and double;
#             with a reference build, the same runs there and their spike files compared byte for byte
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck and initcheck over the replay test
#   large     COBAHH 1M x 200 (experiments/cobahh_1m.toml), float, 1 s: the large network must not lose speed
# Outputs go to out/spiking_small/<stage>*.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stage="${1:?stage: tests | bench | spikes | sanitize}"
build="${2:-$here/build/cuda}"
ref="${3:-}"
out="$here/out/spiking_small"
mkdir -p "$out"
export OMP_PROC_BIND=spread OMP_PLACES=threads KBRAIN_NO_PROGRESS=1
cd "$here"
filter='point_step(_launched)?/cuda/(float|double)/(coba|cobahh)/(4000|64000)/'
case "$stage" in
  tests) (cd "$build" && ctest -R 'spiking_core|point_neurons|network_generation|cortex_hh' --output-on-failure) |
           tee "$out/tests.txt" ;;
  bench)
    for round in 1 2; do
      if [ -n "$ref" ]; then
        "$ref/bench/kbrain_bench" --benchmark_filter="$filter" --benchmark_counters_tabular=true |
          tee "$out/bench_reference_$round.txt"
      fi
      "$build/bench/kbrain_bench" --benchmark_filter="$filter" --benchmark_counters_tabular=true |
        tee "$out/bench_$round.txt"
    done ;;
  spikes)
    for exp in coba cobahh; do
      for p in float double; do
        "$build/experiments/program/kbrain" run "experiments/$exp.toml" -b cuda -p "$p" -o "$out/${exp}_$p" \
          --no-plots > "$out/${exp}_$p.txt"
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], {k: d.get(k) for k in ('simulate_s','steps','spikes','steps_replayed')})" \
          "$out/${exp}_$p/run.json" "${exp}_$p" | tee -a "$out/spikes.txt"
        if [ -n "$ref" ]; then
          "$ref/experiments/program/kbrain" run "experiments/$exp.toml" -b cuda -p "$p" -o "$out/${exp}_${p}_reference" \
            --no-plots > "$out/${exp}_${p}_reference.txt"
          python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], {k: d.get(k) for k in ('simulate_s','steps','spikes')})" \
            "$out/${exp}_${p}_reference/run.json" "${exp}_${p}_reference" | tee -a "$out/spikes.txt"
          if cmp "$out/${exp}_$p/spikes.csv" "$out/${exp}_${p}_reference/spikes.csv"; then
            echo "${exp}_$p: spikes.csv identical to the reference build's" | tee -a "$out/spikes.txt"
          else
            echo "${exp}_$p: spikes.csv DIFFERS from the reference build's" | tee -a "$out/spikes.txt"
          fi
        fi
      done
    done ;;
  sanitize)
    cs=/usr/local/cuda/bin/compute-sanitizer
    for tool in memcheck racecheck synccheck initcheck; do
      "$cs" --tool "$tool" --error-exitcode 1 "$build/tests/kbrain_tests" --backend=cuda \
        --test-case='replayed steps (a CUDA graph)*' > "$out/sanitize_$tool.txt" 2>&1 && echo "$tool: clean" ||
        echo "$tool: FOUND ERRORS (out/spiking_small/sanitize_$tool.txt)"
      tail -3 "$out/sanitize_$tool.txt"
    done | tee "$out/sanitize.txt" ;;
  large)
    "$build/experiments/program/kbrain" run experiments/cobahh_1m.toml -b cuda -o "$out/cobahh_1m" --no-plots \
      > "$out/cobahh_1m.txt"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print({k: d.get(k) for k in ('generate_s','setup_s','simulate_s','spikes','steps_replayed')})" \
      "$out/cobahh_1m/run.json" | tee -a "$out/cobahh_1m.txt" ;;
  *) echo "unknown stage $stage" >&2; exit 2 ;;
esac
