#!/usr/bin/env bash
# kbrain run writes beside its output folder and moves the result into place only when the run has finished
# (docs/output-formats.md, "Where a run writes"):
#   - while a run writes, its trace reaches the file within about a second, long before the device buffer is full;
#   - a second run into the same folder meanwhile is refused (exit 2, one line naming the lock) and writes nothing;
#   - SIGINT stops the run after the step under way: exit 130, a message naming the signal and the kept folder, the
#     folder kept as <out>.partial-<pid> with run.json "complete": false, "failed": "interrupted by SIGINT ..." and
#     every sample taken so far; the complete earlier result in <out> is untouched.
# Usage: output_folder.sh KBRAIN EXPERIMENT WORKDIR   (EXPERIMENT: a short run, e.g. io_all2all10.toml)
set -uo pipefail
kb="$1"; short="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*"; [ -n "${pid:-}" ] && kill -KILL "$pid" 2> /dev/null; exit 1; }

# A run that is slow on purpose: a 512 x 512 IO mesh on the serial backend (tens of ms a step), one recorded cell
# every step, so that the device buffer (4096 samples) would take minutes to fill.
cat > slow.toml <<'TOML'
name = "slow_mesh"
[model]
kind = "io"
parameter_set = "reference"
[simulation]
dt = 0.05
steps = 1000000
precision = "double"
[network]
type = "mesh2d"
rows = 512
cols = 512
conductance = 0.04
[cells.g_cal]
kind = "uniform"
low = 0.6
high = 0.8
seed = 42
[record]
variables = ["v_axon"]
cells = [0]
every = 1
csv = true
spikes = true
TOML

# A complete earlier result in out/.
"$kb" run "$short" -b serial --steps 100 --no-plots -o out > first.txt 2>&1 || fail "first run: $(cat first.txt)"
grep -q '"complete": true' out/run.json || fail "the first run is not complete"
# the memory the run needs, stated before it started (models/runtime/memory_statement.hpp)
grep -q '"host_bytes": [1-9]' out/run.json || fail "run.json states no host bytes"
grep -q '"device_bytes": [1-9]' out/run.json || fail "run.json states no device bytes"
cp -r out earlier

# Job control on: a background command of a shell without it starts with SIGINT ignored, which kbrain respects.
set -m
"$kb" run slow.toml -b serial --no-plots -o out > slow.out 2> slow.err &
pid=$!
partial=""
samples=0
for _ in $(seq 1 600); do  # up to 2 minutes for the first flushed sample (a second's worth is expected)
  kill -0 "$pid" 2> /dev/null || fail "the slow run ended early: $(cat slow.err)"
  partial=$(ls -d out.partial-* 2> /dev/null | head -1)
  if [ -n "$partial" ] && [ -f "$partial/trace.csv" ]; then
    samples=$(( $(wc -l < "$partial/trace.csv") - 1 ))
    [ "$samples" -gt 0 ] && break
  fi
  sleep 0.2
done
[ "$samples" -gt 0 ] || fail "no trace sample reached $partial/trace.csv while the run went on"
# Flushed on time, not because the device buffer was full: fewer samples than it holds.
[ "$samples" -lt 4096 ] || fail "the first samples came as a full buffer ($samples)"
[ "$partial" = "out.partial-$pid" ] || fail "working folder $partial, expected out.partial-$pid"

# A second run into the same folder while the first holds the lock.
"$kb" run "$short" -b serial --steps 100 --no-plots -o out > second.out 2> second.err
rc=$?
[ "$rc" = 2 ] || fail "a concurrent run into out exited $rc, not 2: $(cat second.err)"
grep -q "another kbrain run is writing out" second.err || fail "refusal message: $(cat second.err)"
[ "$(wc -l < second.err)" = 1 ] || fail "not one line: $(cat second.err)"
[ "$(ls -d out.partial-* | wc -l)" = 1 ] || fail "the refused run created a folder: $(ls -d out.*)"

kill -INT "$pid"
wait "$pid"
rc=$?
pid=""
[ "$rc" = 130 ] || fail "SIGINT: exit $rc, not 130: $(cat slow.err)"
grep -q "interrupted by SIGINT after step" slow.err || fail "no interruption message: $(cat slow.err)"
grep -q "$partial" slow.err || fail "the message does not name $partial: $(cat slow.err)"
grep -q '"complete": false' "$partial/run.json" || fail "the interrupted run.json is not incomplete"
grep -q '"failed": "interrupted by SIGINT after step' "$partial/run.json" || fail "run.json lacks the reason"
after=$(( $(wc -l < "$partial/trace.csv") - 1 ))
[ "$after" -ge "$samples" ] || fail "the trace lost samples: $after < $samples"
step=$(sed -n 's/.*"failed_after_step": \([0-9]*\).*/\1/p' "$partial/run.json")
[ "$after" = "$step" ] || fail "trace has $after samples, the run stopped after step $step"
diff -r earlier out > /dev/null || fail "the earlier result in out was changed"
[ ! -e out.lock ] || fail "the lock file was left behind"
echo "output_folder: all passed"
