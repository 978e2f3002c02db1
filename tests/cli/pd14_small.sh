#!/usr/bin/env bash
# PD14 at network.scale 0.2 (experiments/pd14_small.toml): Serial and OpenMP (2 threads) write the same spike file,
# and every population's rate lies within a factor of 3 of the reference's full-scale rate (a wide band: a fifth of
# the network with its lost input given back as a current is not the benchmark, only the same regime: no population
# silent or running away).
# Usage: pd14_small.sh KBRAIN EXPERIMENT WORKDIR
set -uo pipefail
kb="$1"; exp="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
args=(--warmup-steps 0 --steps 4000 --no-plots)
"$kb" run "$exp" -b serial -o "$work/serial" "${args[@]}" > "$work/serial.log" 2>&1 || fail "serial run: $(tail -3 "$work/serial.log")"
OMP_NUM_THREADS=2 "$kb" run "$exp" -b openmp -o "$work/openmp" "${args[@]}" > "$work/openmp.log" 2>&1 ||
  fail "openmp run: $(tail -3 "$work/openmp.log")"
cmp -s "$work/serial/spikes.csv" "$work/openmp/spikes.csv" || fail "Serial and OpenMP spike files differ"
echo "spike files identical: $(($(wc -l < "$work/serial/spikes.csv") - 1)) spikes"
# reference full-scale rates (Hz), INM-6/microcircuit-PD14-model full_mean_rates
declare -A ref=([L23E]=0.903 [L23I]=2.965 [L4E]=4.414 [L4I]=5.876 [L5E]=7.569 [L5I]=8.633 [L6E]=1.105 [L6I]=7.829)
for pop in "${!ref[@]}"; do
  rate=$(grep -o "\"rate_hz_$pop\": [0-9.e+-]*" "$work/serial/run.json" | awk '{print $2}')
  [ -n "$rate" ] || fail "run.json has no rate_hz_$pop"
  awk -v r="$rate" -v q="${ref[$pop]}" 'BEGIN { exit !(r >= q / 3 && r <= q * 3) }' ||
    fail "$pop: rate $rate Hz outside [${ref[$pop]}/3, ${ref[$pop]}x3]"
  echo "$pop: $rate Hz (reference ${ref[$pop]})"
done
grep -q '"populations": "L23E,L23I,L4E,L4I,L5E,L5I,L6E,L6I"' "$work/serial/run.json" || fail "run.json lacks the layout"
echo "PASS"
