#!/usr/bin/env bash
# `kbrain compare --ranks 1,2` (strong) and `--weak` on a small mesh: both tables must have one complete row per rank
# count, the 2-rank row must report a halo and a (fenced) exchange time, the per-rank table one row per rank, and the
# weak run must double the cells. Timing values are not checked.
# Usage: compare_ranks.sh KBRAIN EXPERIMENT
set -euo pipefail
kbrain="$1" exp="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$kbrain" compare "$exp" --ranks 1,2 --sizes 16 --steps 20 --backends serial --precisions double -o "$tmp/strong" \
  > "$tmp/strong.out" 2> "$tmp/strong.err"
"$kbrain" compare "$exp" --ranks 1,2 --weak --sizes 16 --steps 20 --backends serial --precisions double \
  -o "$tmp/weak" > "$tmp/weak.out" 2> "$tmp/weak.err"
cat "$tmp/strong.out" "$tmp/weak.out"
status=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; status=1; fi; }
check "strong: two rows" '[ "$(grep -c "^[0-9]" "$tmp/strong/compare_ranks.csv")" = 2 ]'
check "strong: 1 rank has no halo, 2 ranks do" \
  'awk -F, "NR==2 && \$12!=0 {exit 1} NR==3 && \$12==0 {exit 1}" "$tmp/strong/compare_ranks.csv"'
check "strong: same cells at both rank counts" \
  'awk -F, "NR==2 {c=\$3} NR==3 && \$3!=c {exit 1}" "$tmp/strong/compare_ranks.csv"'
check "weak: cells double (mesh side 16 -> 23 at 2 ranks: 256 -> 529)" \
  'awk -F, "NR==2 && \$3!=256 {exit 1} NR==3 && \$3!=529 {exit 1}" "$tmp/weak/compare_ranks.csv"'
check "per-rank phases: one row per rank of every run (1 + 2)" \
  '[ "$(grep -c "^[0-9]" "$tmp/strong/compare_ranks_per_rank.csv")" = 3 ]'
check "fenced phases: 2 ranks exchange, 1 rank does not" \
  'awk -F, "NR==2 && \$15!=0 {exit 1} NR==3 && \$15<=0 {exit 1}" "$tmp/strong/compare_ranks.csv"'
check "no failed runs" '! grep -q failed "$tmp/strong/compare_ranks.md" "$tmp/weak/compare_ranks.md"'
exit $status
