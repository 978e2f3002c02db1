#!/usr/bin/env bash
# `kbrain compare --peer`: without Brian2 (a Python that cannot import it) the comparison still completes, exit 0,
# says "peer brian2 skipped: <reason>" and records it in compare.csv; an unknown peer, a peer for an experiment that is
# not a spiking network and --peer with --threads are refused (exit 2, one line naming --peer).
# Usage: compare_peer.sh KBRAIN SPIKING_EXPERIMENT OTHER_EXPERIMENT PYTHON WORKDIR
set -uo pipefail
kb="$1"; spiking="$2"; other="$3"; python="$4"; work="$5"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*"; exit 1; }

# A Python without Debian's modules (no site packages): neither numpy nor Brian2 import.
printf '#!/bin/sh\nexec %s -S "$@"\n' "$python" > nobrian.sh
chmod +x nobrian.sh
KBRAIN_PYTHON="$work/nobrian.sh" "$kb" compare "$spiking" --peer brian2 --sizes 200 --steps 100 --backends serial \
  --precisions double -o out --no-plots > out.txt 2> err.txt
rc=$?
[ "$rc" = 0 ] || fail "compare without Brian2 exited $rc: $(cat err.txt)"
grep -q "peer brian2 skipped: Brian2 is not importable" out.txt || fail "no skip line: $(cat out.txt)"
grep -q "peer brian2 skipped" out/compare.csv || fail "compare.csv does not record the skip: $(cat out/compare.csv)"
grep -q "^200,serial,double" out/compare.csv || fail "the kbrain row is missing: $(cat out/compare.csv)"

# A Python that is not there: skipped too.
KBRAIN_PYTHON="$work/no_such_python" "$kb" compare "$spiking" --peer brian2 --sizes 200 --steps 100 \
  --backends serial --precisions double -o out2 --no-plots > out2.txt 2> err2.txt
rc=$?
[ "$rc" = 0 ] || fail "compare with a missing Python exited $rc: $(cat err2.txt)"
grep -q "peer brian2 skipped" out2.txt || fail "no skip line for a missing Python: $(cat out2.txt)"

refused() {  # expected text, then the arguments
  local want="$1"; shift
  "$kb" "$@" > r_out.txt 2> r_err.txt
  local rc=$?
  [ "$rc" = 2 ] || fail "kbrain $* exited $rc, not 2: $(cat r_err.txt)"
  grep -q -- "$want" r_err.txt || fail "kbrain $*: message lacks '$want': $(cat r_err.txt)"
  [ ! -e r ] || fail "kbrain $* left an output folder"
}
refused '--peer: unknown peer "nest"' compare "$spiking" --peer nest -o r
refused "--peer compares spiking networks only" compare "$other" --peer brian2 -o r
refused "--peer adds rows to the backends table" compare "$spiking" --peer brian2 --threads 1,2 -o r
echo "ok"
