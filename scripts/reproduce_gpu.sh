#!/usr/bin/env bash
# The studies' tables on a GPU machine (issue 26): `kbrain reproduce STUDY --scale full` for each study named, into
# out/reproduce/<study>_full, with the run's log beside it. Usage:
#   scripts/reproduce_gpu.sh [build folder, default build/cuda] [STUDY...]   (default: du_nguyen neofytou van_der_vlag wang)
#   KBRAIN_REPRODUCE_BACKENDS   --backends for every study (e.g. "cuda,openmp" to leave the serial runs out)
#   KBRAIN_REPRODUCE_SCALE      small | full (default full)
#   KBRAIN_REPRODUCE_OUT        where the reports and logs go (default out/reproduce)
#   KBRAIN_REPRODUCE_ARGS_<study>  more arguments for that study, e.g. KBRAIN_REPRODUCE_ARGS_wang="--max-slow-cell-steps
#                               20000000" or KBRAIN_REPRODUCE_ARGS_van_der_vlag="--steps 200" to fit a time limit
#                               (the report footnotes both)
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
rc=0
dest="${KBRAIN_REPRODUCE_OUT:-out/reproduce}"
mkdir -p "$dest"
for study in "${studies[@]}"; do
  args=(reproduce "$study" --scale "${KBRAIN_REPRODUCE_SCALE:-full}" -o "$dest/${study}_${KBRAIN_REPRODUCE_SCALE:-full}")
  [ -n "${KBRAIN_REPRODUCE_BACKENDS:-}" ] && args+=(--backends "$KBRAIN_REPRODUCE_BACKENDS")
  extra_var="KBRAIN_REPRODUCE_ARGS_$study"
  # shellcheck disable=SC2206
  [ -n "${!extra_var:-}" ] && args+=(${!extra_var})
  echo "[reproduce_gpu] kbrain ${args[*]}"
  start=$(date +%s)
  status=0
  "$build/experiments/program/kbrain" "${args[@]}" > "$dest/${study}.log" 2>&1 || status=$?
  echo "[reproduce_gpu] $study: exit $status, $(( $(date +%s) - start )) s, report $dest/${study}_${KBRAIN_REPRODUCE_SCALE:-full}/report.md"
  [ "$status" -eq 0 ] || rc=1
done
exit $rc
