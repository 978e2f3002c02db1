#!/usr/bin/env bash
# kbrain's command line on galbraith_lif: run writes spike_counts.csv with the thesis' counts; compare sweeps the
# synapse-update variants in one table; compare --threads gathers one process per thread count; bad input exits 2
# and leaves no complete result behind; a random network written by kbrain_galbraith_network and read back as a file
# gives the same counts. Usage: cli.sh KBRAIN KBRAIN_GALBRAITH_NETWORK WORKDIR
set -euo pipefail
kb="$1"; writer="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*"; exit 1; }

cat > ring.toml <<'TOML'
name = "ring"
[model]
kind = "galbraith_lif"
[simulation]
dt = 0.25
steps = 40000
[network]
topology = "ring"
neurons = 25
[record]
spikes = false
[compare]
variants = ["event", "agent"]
precisions = ["float"]
TOML

"$kb" run ring.toml -b serial -o run --no-plots > run.log 2>&1 || { cat run.log; fail "run"; }
grep -q '"complete": true' run/run.json || fail "run.json not complete"
# neurons 1-3 (ids 0-2) 4445, 4-12 4444, 13-21 4443
[ "$(sed -n 2p run/spike_counts.csv)" = "0,4445" ] || fail "neuron 0: $(sed -n 2p run/spike_counts.csv)"
[ "$(sed -n 4p run/spike_counts.csv)" = "2,4445" ] || fail "neuron 2"
[ "$(sed -n 5p run/spike_counts.csv)" = "3,4444" ] || fail "neuron 3"
[ "$(sed -n 13p run/spike_counts.csv)" = "11,4444" ] || fail "neuron 11"
[ "$(sed -n 14p run/spike_counts.csv)" = "12,4443" ] || fail "neuron 12"
grep -q '"refractory_rule"' run/run.json || fail "run.json lacks the refractory decision"

"$kb" compare ring.toml --steps 2000 -o cmp --no-plots > cmp.log 2>&1 || { cat cmp.log; fail "compare"; }
grep -q 'ring N=25 event' cmp/compare.csv || fail "no event rows"
grep -q 'ring N=25 agent' cmp/compare.csv || fail "no agent rows"
if grep -q ',NO,' cmp/compare.csv; then fail "counts differ from the reference"; fi

"$kb" compare ring.toml --threads 1,2 --variants event --steps 2000 -o thr --no-plots > thr.log 2>&1 || { cat thr.log; fail "threads"; }
[ "$(grep -c '^"ring N=25 event",float,' thr/thread_scaling.csv)" = 2 ] || { cat thr/thread_scaling.csv; fail "thread rows"; }

set +e
"$kb" run ring.toml --variant sideways -o bad > bad.log 2>&1; rc=$?
set -e
[ "$rc" = 2 ] || fail "--variant sideways: exit $rc"
grep -q "is not a value of simulation.synapse_update" bad.log || fail "message: $(cat bad.log)"
[ ! -e bad/run.json ] || fail "a refused run left run.json"

printf 'x' > short.bin
sed -e 's/topology = "ring"/topology = "file"\nfile = "short.bin"/' ring.toml > file.toml
set +e
"$kb" run file.toml -o badfile > badfile.log 2>&1; rc=$?
set -e
[ "$rc" = 2 ] || fail "malformed connection file: exit $rc"
grep -q "short.bin: 1 bytes is not a whole number of 16-byte records" badfile.log || fail "message: $(cat badfile.log)"
# One generated network, written once, read back as a file: the same spike counts.
cat > random.toml <<'TOML'
name = "random"
[model]
kind = "galbraith_lif"
[model.parameters]
weight = 900
[simulation]
dt = 0.25
steps = 3000
[network]
topology = "random"
neurons = 200
synapses = 800
seed = 5
[stimulus]
neurons = [0, 7]
[record]
spikes = false
TOML
"$writer" random.toml net.bin > writer.log 2>&1 || { cat writer.log; fail "writer"; }
[ "$(stat -c %s net.bin)" = 12800 ] || fail "net.bin size $(stat -c %s net.bin)"
sed -e 's/topology = "random"/topology = "file"\nfile = "net.bin"/' -e '/^synapses/d' -e '/^seed/d' random.toml > fromfile.toml
"$kb" run random.toml -b serial -o rnd --no-plots > rnd.log 2>&1 || { cat rnd.log; fail "random run"; }
"$kb" run fromfile.toml -b openmp -o fromfile --no-plots > fromfile.log 2>&1 || { cat fromfile.log; fail "file run"; }
cmp -s rnd/spike_counts.csv fromfile/spike_counts.csv || fail "counts differ between the generated network and its file"
[ "$(awk -F, 'NR > 1 { s += $2 } END { print (s > 100) }' rnd/spike_counts.csv)" = 1 ] || fail "no activity"
echo "galbraith cli: ok"
