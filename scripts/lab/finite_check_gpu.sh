#!/usr/bin/env bash
# The runner's finite check (NaN/inf) on a GPU: simulate seconds of COBA 4000 (10 000 steps) and the IO mesh 1024²
# in float (20 000 steps) with --finite-check-every 0 (one check at the end) and the default 1000, rounds
# interleaved. Usage: scripts/lab/finite_check_gpu.sh KBRAIN OUT [ROUNDS]
set -euo pipefail
kbrain="${1:?kbrain binary}"
out="${2:?output folder}"
rounds="${3:-5}"
mkdir -p "$out"
export KBRAIN_NO_PROGRESS=1
simulate_s() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['simulate_s'])" "$1/run.json"; }
for r in $(seq 1 "$rounds"); do
  for k in 0 1000; do
    "$kbrain" run experiments/coba.toml -b cuda --finite-check-every "$k" -o "$out/coba_${k}_$r" --no-plots >/dev/null
    echo "coba4000 K=$k round $r simulate_s $(simulate_s "$out/coba_${k}_$r")" | tee -a "$out/finite_check.txt"
    "$kbrain" run experiments/io_du_nguyen_mesh.toml -b cuda -p float --size 1024 -n 20000 \
      --finite-check-every "$k" -o "$out/io_${k}_$r" --no-plots >/dev/null
    echo "io1024f K=$k round $r simulate_s $(simulate_s "$out/io_${k}_$r")" | tee -a "$out/finite_check.txt"
  done
done
