#!/usr/bin/env bash
# A/B of the adex_costa pass on a GPU machine: this tree against the tree in .oldtree/ (`git archive BASE | tar -x -C
# .oldtree`), both CUDA and kbrain only, built side by side; the runs alternate old, new so both see the same machine.
# Usage: [KBRAIN_AB_NCU=1] scripts/lab/ab_adex_gpu.sh OUT   (needs .offline/, scripts/offline_bundle.sh). One line per run,
# then whether the spike files are identical, then (KBRAIN_AB_NCU=1) each kernel's time per tree.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:?output folder}"
old="$here/.oldtree"
root=/tmp/kbrain-sysroot
mkdir -p "$out" "$root" /tmp/ab_adex
[ -d "$root/usr/include/toml++" ] || for d in "$here"/.offline/debs/*.deb; do dpkg -x "$d" "$root"; done
export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" KBRAIN_NO_PROGRESS=1
ln -sfn "$here/.offline" "$old/.offline"
flags=(-DKBRAIN_BUILD_TESTS=OFF -DKBRAIN_BUILD_BENCH=OFF)
t0=$(date +%s)
(cd "$old" && KBRAIN_MPI=0 KBRAIN_JOBS=8 scripts/offline_build.sh cuda "${flags[@]}" >"$out/build_old.log" 2>&1; echo "old build exit $? after $(( $(date +%s) - t0 )) s") &
(cd "$here" && KBRAIN_MPI=0 KBRAIN_JOBS=8 scripts/offline_build.sh cuda "${flags[@]}" >"$out/build_new.log" 2>&1; echo "new build exit $? after $(( $(date +%s) - t0 )) s") &
wait
t61="$here/experiments/neofytou_t6_1_mxm.toml"
# experiment (Table 6.1's all-connected mxm, Table 6.4's half), size, precision, steps
cases=("t6_1_mxm 10000 float 1000" "t6_1_mxm 10000 double 1000" "t6_1_mxm 20000 float 100" "t6_1_mxm 5000 float 1000"
  "t6_1_mxm 1000 float 1000" "t6_4_mxm_half 10000 float 1000")
for round in 1 2; do
  for tree in old new; do
    kb="$here/build/cuda/experiments/program/kbrain"; [ "$tree" = old ] && kb="$old/build/cuda/experiments/program/kbrain"
    for c in "${cases[@]}"; do
      set -- $c
      dir="/tmp/ab_adex/$tree-$1-$2-$3-$round"
      rm -rf "$dir"
      if "$kb" run "$here/experiments/neofytou_$1.toml" -b cuda -p "$3" --size "$2" --steps "$4" -o "$dir" >"$dir.log" 2>&1; then
        echo "$tree round $round $1 ${2}^2 $3 $4 steps simulate_s $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['simulate_s'])" "$dir/run.json")"
      else
        echo "$tree round $round $1 ${2}^2 $3 FAILED: $(tail -2 "$dir.log")"
      fi
    done
  done
done
# Both trees' spike files, compared (the kernels' changes must keep them byte-identical).
for c in "${cases[@]}"; do
  set -- $c
  cmp -s "/tmp/ab_adex/old-$1-$2-$3-1/spikes.csv" "/tmp/ab_adex/new-$1-$2-$3-1/spikes.csv" \
    && echo "spikes $1 ${2}^2 $3: identical" || echo "spikes $1 ${2}^2 $3: DIFFER"
done
# KBRAIN_AB_NCU=1: each kernel's time in two steps of each tree (Nsight Compute, kernels run one at a time), µs.
if [ "${KBRAIN_AB_NCU:-0}" = 1 ] && command -v ncu >/dev/null; then
  for tree in old new; do
    kb="$here/build/cuda/experiments/program/kbrain"; [ "$tree" = old ] && kb="$old/build/cuda/experiments/program/kbrain"
    for n in 10000 1000; do
      ncu --metrics gpu__time_duration.sum --csv --launch-skip 150 --launch-count 24 --cache-control none \
        --clock-control none "$kb" run "$t61" -b cuda -p float --size "$n" --steps 30 -o "/tmp/ab_adex/ncu-$tree-$n" \
        >"$out/ncu-$tree-$n.csv" 2>/dev/null
      echo "ncu $tree ${n}^2 float: $(python3 - "$out/ncu-$tree-$n.csv" <<'PY'
import csv, re, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; k = h.index('Kernel Name'); v = h.index('Metric Value')
print(' | '.join(((re.search(r'adex::(\w+)', r[k]) or re.search(r'(\w+)', r[k])).group(1)) + ' ' + r[v] for r in rows[1:]))
PY
)"
    done
  done
fi
