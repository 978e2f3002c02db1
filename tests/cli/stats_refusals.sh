#!/usr/bin/env bash
# kbrain stats refuses bad run folders as kbrain refuses bad files: exit 2, one line on stderr naming the file (and
# the line of a CSV), and no stats.json or .npy file written. A good folder beside them is summarised.
# Usage: stats_refusals.sh KBRAIN WORKDIR
set -uo pipefail
kb="$1"; work="$2"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*"; exit 1; }

# run FOLDER COMPLETE STEPS [spikes.csv text]: a made-up run of 10 neurons at dt 0.5 ms.
run() {
  mkdir -p "$1"
  printf '{\n  "complete": %s,\n  "dt_ms": 0.5,\n  "neurons": 10,\n  "steps": %s\n}\n' "$2" "$3" > "$1/run.json"
  if [ $# -ge 4 ]; then printf 'step,cell\n%b' "$4" > "$1/spikes.csv"; fi
}

refused() {  # expected text, then the arguments
  local want="$1"; shift
  "$kb" stats "$@" > out.txt 2> err.txt
  local rc=$?
  [ "$rc" = 2 ] || fail "kbrain stats $* exited $rc, not 2: $(cat err.txt)"
  [ "$(wc -l < err.txt)" = 1 ] || fail "kbrain stats $*: not one line on stderr: $(cat err.txt)"
  grep -qF -- "$want" err.txt || fail "kbrain stats $*: message lacks '$want': $(cat err.txt)"
  [ -z "$(find . -name 'stats*.json' -o -name 'stats_*.npy')" ] || fail "kbrain stats $* wrote $(find . -name 'stats*')"
}

run good true 2000 '1200,3\n1300,3\n1500,3\n1600,4\n'
refused "nosuch: no such run folder" nosuch
mkdir empty
refused "empty/run.json: missing" empty
run incomplete false 2000 '1200,3\n'
refused "incomplete/run.json: the run did not complete" incomplete
run nospikes true 2000
refused "nospikes: no spikes.csv, spikes.kbs or spikes.h5" nospikes
run badline true 2000 '1200,3\n1300;3\n'
refused "badline/spikes.csv:3:" badline
run badnumber true 2000 '1200,3\n1300,x\n'
refused "badnumber/spikes.csv:3:" badnumber
run negative true 2000 '-5,3\n'
refused "negative/spikes.csv:2: step -5" negative
run bigcell true 2000 '1200,3\n1300,10\n'
refused "bigcell/spikes.csv:3: neuron 10 is not one of the run's 10 neurons" bigcell
run badheader true 2000
printf 'cell,step\n3,1200\n' > badheader/spikes.csv
refused "badheader/spikes.csv:1:" badheader
run short true 600 '100,3\n'
refused "run short lasts 300 ms" short
refused "--t-max-ms 1200 ms is after the end of run good" good --t-max-ms 1200
refused "--t-max-ms 400 ms is not after" good --t-max-ms 400
mkdir badjson; printf '{"complete": true, "dt_ms": [1]}\n' > badjson/run.json
refused "badjson/run.json: not a flat JSON object" badjson
run nodt true 2000 '1200,3\n'
sed -i '/dt_ms/d' nodt/run.json
refused 'nodt/run.json: no "dt_ms"' nodt
run binary true 2000
printf 'KBSPIKE1\x05\x00\x00\x00\x00\x00\x00\x00' > binary/spikes.kbs
refused "binary/spikes.kbs: 5 events declared, file too short" binary
run pops true 2000 '1200,3\n'
sed -i 's/"complete": true,/"complete": true,\n  "populations": "a",\n  "first_a": 0,\n  "neurons_a": 10,/' pops/run.json
refused "has the populations a, run good has all" good pops
refused "--bin-ms" good --bin-ms 0
refused "--sample" good --sample 1
refused "--t-min-ms" good --t-min-ms -1
refused "required"
refused "lists good twice" good good

# The good folder is summarised: stats.json and the .npy files beside it, the table on stdout.
"$kb" stats good > out.txt 2> err.txt || fail "kbrain stats good failed: $(cat err.txt)"
[ -s good/stats.json ] || fail "no good/stats.json"
for f in sample rates cvs ccs; do [ -s "good/stats_0_all_$f.npy" ] || fail "no good/stats_0_all_$f.npy"; done
grep -q "all" out.txt || fail "no table on stdout: $(cat out.txt)"
[ -z "$(find . -name '*.tmp')" ] || fail "temporary files left: $(find . -name '*.tmp')"
echo "kbrain stats refusals: ok"
