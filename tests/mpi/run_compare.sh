#!/usr/bin/env bash
# MPI end-to-end check (registered in tests/CMakeLists.txt):
#   kbrain run EXP (single process)  vs  mpiexec -n RANKS kbrain run EXP --partition PART
# trace.csv, trace.kbt and spikes.csv must be byte-identical (double precision, serial backend).
# Usage: run_compare.sh KBRAIN MPIEXEC "MPIEXEC_FLAGS" RANKS PARTITION EXPERIMENT [backend]
# PARTITION "self": a model that splits itself (adex_costa): no --partition, no ranks.csv.
set -euo pipefail
kbrain="$1" mpiexec="$2" flags="$3" ranks="$4" part="$5" exp="$6" backend="${7:-serial}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$kbrain" run "$exp" -b "$backend" -p double -o "$tmp/single" > "$tmp/single.log"
# shellcheck disable=SC2086
partition=(--partition "$part")
[ "$part" = self ] && partition=()
"$mpiexec" $flags -n "$ranks" "$kbrain" run "$exp" -b "$backend" -p double -o "$tmp/mpi" "${partition[@]}" \
  > "$tmp/mpi.log"
cat "$tmp/mpi.log"
status=0
for f in trace.csv trace.kbt spikes.csv; do
  if [ ! -s "$tmp/single/$f" ]; then echo "FAIL: single-process run wrote no $f"; status=1; continue; fi
  if cmp "$tmp/single/$f" "$tmp/mpi/$f"; then echo "ok: $f identical ($(wc -c < "$tmp/single/$f") bytes)";
  else echo "FAIL: $f differs"; status=1; fi
done
grep -q '"complete": true' "$tmp/mpi/run.json" || { echo "FAIL: run.json not complete"; status=1; }
if [ "$part" != self ]; then
  [ "$(($(wc -l < "$tmp/mpi/ranks.csv") - 1))" = "$ranks" ] || { echo "FAIL: ranks.csv has no row per rank"; status=1; }
fi
exit $status
