#!/usr/bin/env bash
# What a run has recorded reaches its files on time, whatever else drains in between, so that a run killed with
# SIGKILL (the out-of-memory killer, a batch system) loses at most about the last second of output
# (models/runtime/model_runner.hpp, kOutputFlushInterval; docs/output-formats.md, "Where a run writes").
# The run: a 64 x 64 IO mesh on the serial backend whose spikes drain every 128 steps (many times a second) while its
# trace, one cell every 10 steps, would fill the sampler's buffer only after tens of seconds. While it runs, the trace
# and the spike file are polled; each must grow at least every FLUSH_GAP seconds. Then the run is killed with SIGKILL
# and the files must still hold every line seen before the kill, whole lines but for the last.
# Usage: kill_flush.sh KBRAIN WORKDIR
set -uo pipefail
kb="$1"; work="$2"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
pid=""
fail() { echo "FAIL: $*"; [ -n "$pid" ] && kill -KILL "$pid" 2> /dev/null; exit 1; }
# The flush interval is one second; the slack is for a loaded machine.
gap_allowed=2.5

cat > mesh.toml <<'TOML'
name = "kill_flush_mesh"
[model]
kind = "io"
parameter_set = "reference"
[simulation]
dt = 0.05
steps = 100000000
precision = "double"
[network]
type = "mesh2d"
rows = 64
cols = 64
conductance = 0.04
[cells.g_cal]
kind = "uniform"
low = 0.6
high = 0.8
seed = 42
[record]
variables = ["v_axon"]
cells = [0]
every = 10
csv = true
spikes = true
TOML

"$kb" run mesh.toml -b serial --no-plots -o out > run.out 2> run.err &
pid=$!
now() { date +%s.%N; }
lines() { [ -f "$1" ] && wc -l < "$1" || echo 0; }
partial="out.partial-$pid"
start=$(now); last_growth=""; last_rows=0; last_spikes=0; longest=0; polls=0
# Watch for 6 s after the first trace row (and give up if none comes within 20 s).
while :; do
  kill -0 "$pid" 2> /dev/null || fail "the run ended early: $(cat run.err)"
  t=$(now)
  rows=$(lines "$partial/trace.csv")
  if [ "$rows" -gt "$last_rows" ]; then
    if [ -n "$last_growth" ]; then
      longest=$(awk -v a="$longest" -v g="$(awk -v x="$t" -v y="$last_growth" 'BEGIN{print x-y}')" 'BEGIN{print (g>a)?g:a}')
    else
      first=$t
    fi
    last_growth=$t; last_rows=$rows
  fi
  last_spikes=$(lines "$partial/spikes.csv")
  if [ -z "$last_growth" ]; then
    awk -v a="$start" -v b="$t" 'BEGIN{exit !(b-a > 20)}' && fail "no trace row reached $partial/trace.csv in 20 s"
  else
    # a stall that is still going on counts too
    stall=$(awk -v x="$t" -v y="$last_growth" 'BEGIN{print x-y}')
    awk -v s="$stall" -v g="$gap_allowed" 'BEGIN{exit !(s > g)}' && fail "trace.csv did not grow for ${stall} s ($rows lines)"
    awk -v a="$first" -v b="$t" 'BEGIN{exit !(b-a > 6)}' && break
  fi
  polls=$((polls + 1))
  sleep 0.1
done
awk -v l="$longest" -v g="$gap_allowed" 'BEGIN{exit !(l > g)}' && fail "trace.csv went ${longest} s without growing"
[ "$last_spikes" -gt 1 ] || fail "no spike reached $partial/spikes.csv while the run went on"

kill -KILL "$pid"
wait "$pid" 2> /dev/null
pid=""
rows=$(lines "$partial/trace.csv")
[ "$rows" -ge "$last_rows" ] || fail "trace.csv lost lines at the kill: $rows < $last_rows"
[ "$(lines "$partial/spikes.csv")" -ge "$last_spikes" ] || fail "spikes.csv lost lines at the kill"
# Every line before the last is whole: as many fields as the header, a step first. (The kill may fall inside a
# write, so the last line alone may be cut; the folder says it is incomplete.)
awk -F, 'NR == 1 { n = NF; next } { if (seen && (NF0 != n || step !~ /^[0-9]+$/)) bad = 1; NF0 = NF; step = $1; seen = 1 }
         END { exit bad }' "$partial/trace.csv" || fail "trace.csv holds a torn line before its last"
grep -q '"complete": true' "$partial/run.json" 2> /dev/null && fail "a killed run's folder claims to be complete"
[ ! -e out ] || fail "the killed run left a finished-looking out/"
echo "kill_flush: trace grew at least every ${longest} s ($rows lines), spikes $last_spikes lines; all passed"
