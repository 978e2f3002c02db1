#!/usr/bin/env bash
# The PD14 benchmark by the community's recipe (docs/models/pd14.md): full scale, 0.5 s warm-up, 10 s timed,
# spike recording off, DC and Poisson drive, on the backends named, in double and float. One line per run with the
# real-time factor, network build time, synaptic events per second and energy per synaptic event (run.json), and the
# rates of the populations.
# Usage: scripts/pd14_bench.sh OUT [BUILD]   (default build/cuda, else build/host)
#   PD14_BACKENDS   default "cuda" when the build has it, else "openmp"
#   PD14_PRECISIONS default "double float"
#   PD14_STEPS      timed steps (default: the file's 100000 = 10 s)
#   PD14_THREADS    OpenMP threads (default: all cores)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: pd14_bench.sh OUT [BUILD]}"
build="${2:-$here/build/cuda}"
[ -x "$build/experiments/program/kbrain" ] || build="$here/build/host"
kb="$build/experiments/program/kbrain"
backends="${PD14_BACKENDS:-$("$kb" backends 2>/dev/null | grep -q '^ *cuda' && echo cuda || echo openmp)}"
mkdir -p "$out"
export KBRAIN_NO_PROGRESS=1
steps=()
[ -z "${PD14_STEPS:-}" ] || steps=(--steps "$PD14_STEPS")
threads=()
[ -z "${PD14_THREADS:-}" ] || threads=(--threads "$PD14_THREADS")
num() { grep -o "\"$1\": [0-9.e+-]*" "$2" | awk '{print $2}'; }
printf '%-14s %-7s %-7s %10s %10s %12s %12s %s\n' experiment backend prec rtf build_s events_per_s uJ_per_event \
  "rates L23E..L6I (Hz)" | tee "$out/summary.txt"
for exp in pd14 pd14_poisson; do
  for b in $backends; do
    for p in ${PD14_PRECISIONS:-double float}; do
      dir="$out/${exp}_${b}_$p"
      extra=()
      [ "$b" != openmp ] || extra=("${threads[@]}")
      if ! "$kb" run "$here/experiments/$exp.toml" -b "$b" -p "$p" "${steps[@]}" "${extra[@]}" --no-plots -o "$dir" \
        >"$dir.log" 2>&1; then
        echo "$exp $b $p FAILED: $(tail -2 "$dir.log")" | tee -a "$out/summary.txt"
        continue
      fi
      j="$dir/run.json"
      rates=""
      for pop in L23E L23I L4E L4I L5E L5I L6E L6I; do rates+="$(printf '%.3g ' "$(num "rate_hz_$pop" "$j")")"; done
      printf '%-14s %-7s %-7s %10.4f %10.2f %12.4g %12s %s\n' "$exp" "$b" "$p" "$(num wall_s_per_bio_s "$j")" \
        "$(num generate_s "$j")" "$(num synaptic_events_per_s "$j")" "$(num uj_per_synaptic_event "$j" || true)" \
        "$rates" | tee -a "$out/summary.txt"
    done
  done
done
