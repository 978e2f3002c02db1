#!/usr/bin/env bash
# The studies' tables on a GPU machine (issue 26): `kbrain reproduce STUDY --scale full` for each study named, into
# out/reproduce/<study>_full, with the run's log beside it. Usage:
#   scripts/reproduce_gpu.sh [build folder, default build/cuda] [STUDY...]   (default: du_nguyen neofytou van_der_vlag wang)
#   KBRAIN_REPRODUCE_BACKENDS   --backends for every study (e.g. "cuda,openmp" to leave the serial runs out)
#   KBRAIN_REPRODUCE_SCALE      small | full (default full)
# The serial columns run within each experiment's serial budget (max_slow_cell_steps), so their times are per
# biological second or scaled to the study's steps, and the report marks them (†).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build/cuda}"
shift || true
studies=("$@")
[ ${#studies[@]} -gt 0 ] || studies=(du_nguyen neofytou van_der_vlag wang)
export OMP_PROC_BIND=spread OMP_PLACES=threads KBRAIN_NO_PROGRESS=1
cd "$here"
mkdir -p out/reproduce
for study in "${studies[@]}"; do
  args=(reproduce "$study" --scale "${KBRAIN_REPRODUCE_SCALE:-full}" -o "out/reproduce/${study}_${KBRAIN_REPRODUCE_SCALE:-full}")
  [ -n "${KBRAIN_REPRODUCE_BACKENDS:-}" ] && args+=(--backends "$KBRAIN_REPRODUCE_BACKENDS")
  echo "[reproduce_gpu] kbrain ${args[*]}"
  start=$(date +%s)
  "$build/experiments/program/kbrain" "${args[@]}" > "out/reproduce/${study}.log" 2>&1
  echo "[reproduce_gpu] $study: $(( $(date +%s) - start )) s, report out/reproduce/${study}_${KBRAIN_REPRODUCE_SCALE:-full}/report.md"
done
