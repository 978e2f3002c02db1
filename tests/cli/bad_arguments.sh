#!/usr/bin/env bash
# kbrain's command line refuses bad arguments as it refuses bad files: exit 2, one line on stderr that names the
# option, nothing written (no output folder). Also: a thread count above Kokkos' OpenMP limit in the environment is
# clamped with a note instead of crashing, and no Kokkos binding advice comes before kbrain's own lines.
# Usage: bad_arguments.sh KBRAIN EXPERIMENT WORKDIR
set -uo pipefail
kb="$1"; exp="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*"; exit 1; }

refused() {  # expected text, then the arguments
  local want="$1"; shift
  "$kb" "$@" > out.txt 2> err.txt
  local rc=$?
  [ "$rc" = 2 ] || fail "kbrain $* exited $rc, not 2: $(cat err.txt)"
  [ "$(wc -l < err.txt)" = 1 ] || fail "kbrain $*: not one line on stderr: $(cat err.txt)"
  grep -q -- "$want" err.txt || fail "kbrain $*: message lacks '$want': $(cat err.txt)"
  [ ! -e out ] || fail "kbrain $* left an output folder"
}

refused "--steps" run "$exp" --steps 0 -o out
refused "--steps" run "$exp" --steps 99999999999999999999 -o out
refused "--steps" run "$exp" --steps abc -o out
refused "--size" run "$exp" --size 0 -o out
refused "--density" run "$exp" --density nan -o out
refused "--density" run "$exp" --density -1 -o out
refused "--backend" run "$exp" -b '' -o out
refused "--out" run "$exp" -o ''
refused "--precision" run "$exp" -p half -o out
refused "--device-budget" run "$exp" --device-budget inf -o out
refused "--threads" --threads 0 run "$exp" -o out
refused "--threads" --threads 100000 run "$exp" -o out
refused "--steps" compare "$exp" --steps -5 -o out
refused "--sizes" compare "$exp" --sizes 0 -o out
refused "--sizes" compare "$exp" --sizes 8,8 -o out
refused "--backends" compare "$exp" --backends serial,serial -o out
refused "--threads" compare "$exp" --threads 0 -o out
refused "--ranks" compare "$exp" --ranks 0 -o out
refused "--reference-dt" accuracy "$exp" --reference-dt -1 -o out
refused "--reference-dt" accuracy "$exp" --reference-dt 0 -o out
refused "--window" accuracy "$exp" --window nan -o out
refused "required" run
# A spiking network too large for the host's memory is refused before anything is allocated.
refused "neurons need" run "$(dirname "$exp")/cobahh_1m.toml" --size 2000000000 -b serial -o out
refused "not expected" run "$exp" --no-such-option -o out

# OMP_NUM_THREADS beyond the limit: clamped, with one note, and the command works.
OMP_NUM_THREADS=100000 "$kb" backends > out.txt 2> err.txt || fail "OMP_NUM_THREADS=100000 kbrain backends: $(cat err.txt)"
grep -q "OMP_NUM_THREADS asks for 100000 threads; using 512" err.txt || fail "no clamp note: $(cat err.txt)"
grep -q "^  serial" out.txt || fail "backends printed nothing"

# Without OMP_PROC_BIND the first line on stderr is kbrain's own message, not Kokkos' binding advice.
env -u OMP_PROC_BIND -u OMP_PLACES "$kb" run does-not-exist.toml -o out > out.txt 2> err.txt
[ $? = 2 ] || fail "a missing experiment file did not exit 2"
grep -q "OMP_PROC_BIND" out.txt err.txt && fail "Kokkos' binding advice was printed: $(cat out.txt err.txt)"
head -1 err.txt | grep -q "^kbrain: error: " || fail "first line: $(head -1 err.txt)"
echo "bad_arguments: all passed"
