#!/usr/bin/env bash
# `kbrain compare --ranks 1,2` (strong) and `--weak` on a small mesh: both tables must have one complete row per rank
# count, the 2-rank row must report a halo and a (fenced) exchange time, the per-rank table one row per rank, and the
# weak run must double the cells. Timing values are not checked.
# A third run sweeps --densities 4,16 on a uniform network: four rows, and each density's junction count is within
# 10 % of cells x density at both rank counts (the same network: equal counts).
# Usage: compare_ranks.sh KBRAIN EXPERIMENT [UNIFORM_EXPERIMENT]
set -euo pipefail
kbrain="$1" exp="$2" uniform="${3:-}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$kbrain" compare "$exp" --ranks 1,2 --sizes 16 --steps 20 --backends serial --precisions double -o "$tmp/strong" \
  > "$tmp/strong.out" 2> "$tmp/strong.err"
"$kbrain" compare "$exp" --ranks 1,2 --weak --sizes 16 --steps 20 --backends serial --precisions double \
  -o "$tmp/weak" > "$tmp/weak.out" 2> "$tmp/weak.err"
cat "$tmp/strong.out" "$tmp/weak.out"
status=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; status=1; fi; }
# col FILE NAME: the values of column NAME (by header), one per data row
col() { awk -F, -v name="$2" 'NR==1 {for (i = 1; i <= NF; i++) if ($i == name) c = i; next} {print $c}' "$1"; }
strong="$tmp/strong/compare_ranks.csv" weak="$tmp/weak/compare_ranks.csv"
check "strong: two rows" '[ "$(grep -c "^[0-9]" "$strong")" = 2 ]'
check "strong: 1 rank has no halo, 2 ranks do" \
  '[ "$(col "$strong" halo_values_per_step | head -1)" = 0 ] && [ "$(col "$strong" halo_values_per_step | tail -1)" != 0 ]'
check "strong: same cells at both rank counts" '[ "$(col "$strong" cells | sort -u | wc -l)" = 1 ]'
check "weak: cells double (mesh side 16 -> 23 at 2 ranks: 256 -> 529)" \
  '[ "$(col "$weak" cells | tr "\n" " ")" = "256 529 " ]'
check "per-rank phases: one row per rank of every run (1 + 2)" \
  '[ "$(grep -c "^[0-9]" "$tmp/strong/compare_ranks_per_rank.csv")" = 3 ]'
check "fenced phases: 2 ranks exchange, 1 rank does not" \
  'col "$strong" exchange_s | awk "NR==1 && \$1!=0 {exit 1} NR==2 && \$1<=0 {exit 1}"'
check "no failed runs" '! grep -q failed "$tmp/strong/compare_ranks.md" "$tmp/weak/compare_ranks.md"'
if [ -n "$uniform" ]; then
  "$kbrain" compare "$uniform" --ranks 1,2 --densities 4,16 --steps 5 --backends serial --precisions double \
    --halo-exchange mpi -o "$tmp/dens" > "$tmp/dens.out" 2> "$tmp/dens.err"
  cat "$tmp/dens.out"
  dens="$tmp/dens/compare_ranks.csv"
  check "densities: one row per density and rank count" '[ "$(col "$dens" density | tr "\n" " ")" = "4 4 16 16 " ]'
  check "densities: junctions = cells x density (within 10 %), equal at both rank counts" \
    'paste -d, <(col "$dens" density) <(col "$dens" cells) <(col "$dens" junctions) |
       awk -F, "{e = \$1 * \$2; if (\$3 < 0.9 * e || \$3 > 1.1 * e) exit 1; if (NR % 2 == 0 && \$3 != j) exit 1; j = \$3}"'
  check "densities: no failed runs" '! grep -q failed "$tmp/dens/compare_ranks.md"'
  check "densities: the runs used MPI (--halo-exchange mpi), and the table says so" \
    '[ "$(col "$dens" halo_exchange | tr "\n" " ")" = "mpi mpi mpi mpi " ] && grep -q "| 2 | .* | mpi |" "$tmp/dens/compare_ranks.md"'
fi
# --halo-exchange reaches every run: 'peer' needs a backend with a peer transport, so every Serial run fails with
# that error and the table says so; a comparison with failed runs is kept under its working name, peer.partial-<pid>
"$kbrain" compare "$exp" --ranks 1,2 --sizes 8 --steps 2 --backends serial --precisions double --halo-exchange peer \
  -o "$tmp/peer" > "$tmp/peer.out" 2> "$tmp/peer.err" || true
check "--halo-exchange peer reaches every run (refused on Serial)" \
  '[ "$(grep -l "peer transport" "$tmp"/peer.partial-*/*.log | wc -l)" = 2 ] &&
   [ "$(cat "$tmp"/peer.partial-*/compare_ranks.md | grep -c failed)" = 2 ] && [ ! -e "$tmp/peer" ]'
# A size whose network does not fit (under an address-space limit of 4 GB, which kbrain counts as what is available)
# is a row that says so on each rank count, not a failed run. ASan reserves more address space than the limit.
if ! ldd "$kbrain" 2> /dev/null | grep -q libasan && (ulimit -v 4000000; "$kbrain" backends > /dev/null 2>&1); then
  big=0
  (ulimit -v 4000000; "$kbrain" compare "$exp" --ranks 1,2 --sizes 20000 --steps 2 --backends serial \
     --precisions double -o "$tmp/big" > "$tmp/big.out" 2> "$tmp/big.err") || big=$?
  check "a size that does not fit: a 'not run' row per rank count, no failed run, exit 0" \
    '[ "$big" = 0 ] && [ "$(grep -c "not run: .*20000 x 20000 mesh.* of host memory" "$tmp/big/compare_ranks.md")" = 2 ] &&
     ! grep -q failed "$tmp/big/compare_ranks.md"'
fi
# --halo-exchange without --ranks is refused (exit 2) before anything runs
if "$kbrain" compare "$exp" --halo-exchange mpi --steps 1 -o "$tmp/refused" > /dev/null 2>&1; then
  echo "FAIL: compare --halo-exchange without --ranks was accepted"; status=1
else
  echo "ok: compare --halo-exchange without --ranks is refused"
fi
exit $status
