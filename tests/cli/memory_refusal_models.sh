#!/usr/bin/env bash
# Every model's memory is planned from its configuration before anything is allocated (the IO and point models:
# tests/cli/memory_refusal.sh). For each of the others, on a CPU backend: a network needing tens of GB or more is
# refused with exit 2 and one line naming the bytes needed and the largest size that fits, at a peak resident size of
# a few hundred MB, leaving no output folder. Where a model used to build part of its network (or start its run)
# before finding that the rest does not fit, the case fakes a smaller machine with an address-space limit (ulimit -v;
# the planners count it as the memory available) and sizes the network so that what was built first alone would
# pass the old check. `kbrain compare` exits 2 when no point fits and keeps a "not run" row for each point that does
# not fit otherwise.
# Usage: memory_refusal_models.sh KBRAIN PYTHON WORKDIR
set -uo pipefail
kb="$1"; py="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
peak_limit_kb=300000
# ASan, and the CUDA runtime where a GPU is present, reserve more address space than these limits: kbrain cannot
# start under them at all, so the limited cases run only where `kbrain backends` starts under the smallest one.
limited=1
if ldd "$kb" 2> /dev/null | grep -q 'libasan' || ! (ulimit -v 1600000; "$kb" backends > /dev/null 2>&1); then
  limited=0
fi
skipped() {  # NAME LIMIT_KB: whether the case needs a limit this kbrain cannot start under (then says so)
  [ "$2" != 0 ] && [ "$limited" = 0 ] && { echo "$1: skipped (kbrain cannot start under ulimit -v $2)"; return 0; }
  return 1
}

# refused_small NAME LIMIT_KB EXPECTED-TEXT ARGS...: kbrain ARGS, under an address-space limit of LIMIT_KB (0: none),
# exits 2 with one line on stderr holding EXPECTED-TEXT, at a small peak RSS, leaving no output folder
refused_small() {
  local name="$1" limit="$2" want="$3"; shift 3
  skipped "$name" "$limit" && return
  (
    [ "$limit" = 0 ] || ulimit -v "$limit"
    "$py" - "$kb" "$@" > "$name.rss" 2> "$name.err" <<'PY'
import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
  )
  read -r rc peak < "$name.rss"
  [ "$rc" = 2 ] || fail "$name: exit $rc, not 2: $(cat "$name.err")"
  [ "$(wc -l < "$name.err")" = 1 ] || fail "$name: not one line on stderr: $(cat "$name.err")"
  grep -q -- "$want" "$name.err" || fail "$name: message lacks '$want': $(cat "$name.err")"
  [ "$peak" -lt "$peak_limit_kb" ] || fail "$name: peak RSS $peak kB before the refusal (limit $peak_limit_kb kB)"
  compgen -G "out_$name*" > /dev/null && fail "$name left an output folder: $(echo out_"$name"*)"
  echo "$name: refused at a peak RSS of $peak kB"
}

# compare_none NAME LIMIT_KB ARGS...: under an address-space limit of LIMIT_KB (0: none), a sweep none of whose points
# fits exits 2 naming it; nothing is published and nothing claims completion
compare_none() {
  local name="$1" limit="$2"; shift 2
  skipped "$name" "$limit" && return
  ( [ "$limit" = 0 ] || ulimit -v "$limit"; exec "$kb" compare "$@" -o "out_$name" --no-plots ) > "$name.out" 2> "$name.err"
  local rc=$?
  [ "$rc" = 2 ] || fail "$name: compare exited $rc, not 2: $(tail -3 "$name.err")"
  grep -q "no point of the comparison fits this machine" "$name.err" || fail "$name: $(tail -3 "$name.err")"
  [ ! -e "out_$name" ] || fail "$name: a sweep that ran nothing was published as out_$name"
  grep -rqs '"complete": *true' out_"$name"* && fail "$name: a file claims completion"
  echo "$name: compare refused, exit 2"
}

# compare_some NAME LIMIT_KB ARGS...: under an address-space limit of LIMIT_KB (0: none), a sweep whose first point
# fits and whose second does not exits 0; its table has a row that ran and a "not run:" row saying what it lacks
compare_some() {
  local name="$1" limit="$2"; shift 2
  skipped "$name" "$limit" && return
  ( [ "$limit" = 0 ] || ulimit -v "$limit"; exec "$kb" compare "$@" -o "out_$name" --no-plots ) > "$name.out" 2> "$name.err" ||
    fail "$name: compare exited $?: $(tail -3 "$name.err")"
  local csv="out_$name/compare.csv"
  [ -f "$csv" ] || fail "$name: no $csv"
  grep -q 'not run: .*\(memory\|free\|available\)' "$csv" || fail "$name: no \"not run\" row naming the memory in $csv"
  [ "$(grep -vc 'not run: ' "$csv")" -ge 2 ] || fail "$name: no row that ran in $csv"
  echo "$name: compare ran the point that fits and marked the other not run"
}

# ---- adex_costa: a dense network of 10^12 synapse slots (17 TB in float); a connection file of 30000 x 30000 slots
# whose flags (0.9 GB) fit a 4 GB address space but whose synapses (15 GB more) do not
printf 'name = "adex_huge"\n[model]\nkind = "adex_costa"\n[simulation]\ndt = 1.0\nsteps = 2\nprecision = "float"\n[network]\narchitecture = "mxm"\nneurons = 1000000\nconnectivity = "all"\n[spikes]\npattern = "all"\n' > adex_huge.toml
refused_small adex_huge 0 "needs .* ([0-9]* bytes) but .* free; at most [0-9]* neurons fit" \
  run adex_huge.toml -b serial -o out_adex_huge --no-plots
printf '0 1\n' > adex_pairs.txt
printf 'name = "adex_file"\n[model]\nkind = "adex_costa"\n[simulation]\ndt = 1.0\nsteps = 2\nprecision = "float"\n[network]\narchitecture = "mxm"\nneurons = 30000\nconnectivity = "file"\nfile = "adex_pairs.txt"\n[spikes]\npattern = "all"\n' > adex_file.toml
refused_small adex_file 4000000 "connection flags and, on this CPU backend, the synapses (float, at least) needs .* of host memory but .* are available" \
  run adex_file.toml -b serial -o out_adex_file --no-plots
compare_none adex_compare_none 0 adex_huge.toml --backends serial --precisions float --sizes 1000000,2000000 -n 1
compare_some adex_compare_some 0 adex_huge.toml --backends serial --precisions float --sizes 64,1000000 -n 1

# ---- cortex_hh: 10^9 neurons with an in-degree of 200 (2e11 synapses)
printf 'name = "cortex_huge"\n[model]\nkind = "cortex_hh"\nparameter_set = "wang2012"\n[simulation]\ndt = 0.02\nsteps = 2\n[network]\ntype = "fixed_in_degree"\nneurons = 1000000000\nexcitatory = 800000000\nin_degree = 200\nw_exc = 0.01\nw_inh = 0.1\n' > cortex_huge.toml
refused_small cortex_huge 0 "1000000000 neurons need .* GiB of host memory .* synapses but .* available .*; at most [0-9]* neurons of this network's rule fit" \
  run cortex_huge.toml -b serial -o out_cortex_huge --no-plots
# compare plans a spiking network without its synapses (one plan serves every backend): sizes whose setup arrays fit
# a 3 GB address space and whose synapses (4e8, about 10 GB) do not are refused by the run's own check
compare_none cortex_compare_none 3000000 cortex_huge.toml --backends serial --precisions float --sizes 2000000 -n 1
compare_some cortex_compare_some 3000000 cortex_huge.toml --backends serial --precisions float --sizes 400,2000000 -n 1

# ---- izhikevich (the point model's third kind beside hh and lif): 10^9 neurons, in-degree 1000
printf 'name = "izh_huge"\n[model]\nkind = "izhikevich"\n[simulation]\nsteps = 2\n[network]\ntype = "fixed_in_degree"\nneurons = 1000000000\nexcitatory = 800000000\nin_degree = 1000\nw_exc = 1\nw_inh = 1\n' > izh_huge.toml
refused_small izh_huge 0 "at most [0-9]* neurons of this network's rule fit" \
  run izh_huge.toml -b serial -o out_izh_huge --no-plots

# ---- galbraith_lif: a random network of 2e9 synapses among 10^8 neurons (over 100 GB with the draw's temporaries
# and the state); a full network of 12000 neurons whose host network (1.15 GB) fits a 2 GB address space but whose
# state beside it does not: the old check built the network first
printf 'name = "lif_random"\n[model]\nkind = "galbraith_lif"\n[simulation]\ndt = 0.25\nsteps = 2\nprecision = "float"\n[network]\ntopology = "random"\nneurons = 100000000\nsynapses = 2000000000\n[record]\nspikes = false\n' > lif_random.toml
refused_small lif_random 0 "host network of 100000000 neurons and 2000000000 synapses and, on this CPU backend, the run's state (float, at least) needs .* of host memory but .* are available; at most [0-9]* synapses among 100000000 neurons fit" \
  run lif_random.toml -b serial -o out_lif_random --no-plots
printf 'name = "lif_full"\n[model]\nkind = "galbraith_lif"\n[simulation]\ndt = 0.25\nsteps = 2\nprecision = "float"\n[network]\ntopology = "full"\nneurons = 12000\n[record]\nspikes = false\n' > lif_full.toml
refused_small lif_full 2000000 "host network of 12000 neurons and 144000000 synapses and, on this CPU backend, the run's state .* needs .* of host memory but .* are available; at most [0-9]* neurons fully connected fit" \
  run lif_full.toml -b serial -o out_lif_full --no-plots
compare_none lif_compare_none 0 lif_random.toml --backends serial --precisions float --densities 2000000000 --sizes 50000 -n 1
compare_some lif_compare_some 0 lif_random.toml --backends serial --precisions float --densities 1000,2000000000 --sizes 50000 -n 1

# ---- galbraith_som: the largest grid, 46340 x 46340 neurons (26 GB of float weights, 32 GB more of host copy)
printf 'name = "som_huge"\n[model]\nkind = "galbraith_som"\n[simulation]\nsteps = 2\nprecision = "float"\n[som]\nwidth = 46340\nheight = 46340\n[input]\nwidth = 120\nheight = 90\n' > som_huge.toml
refused_small som_huge 0 "needs .* of host memory but .* are available; a grid of [0-9]* x [0-9]* neurons fits beside this picture" \
  run som_huge.toml -b serial -o out_som_huge --no-plots
compare_none som_compare_none 0 som_huge.toml --backends serial --precisions float --sizes 46340 -n 1
compare_some som_compare_some 0 som_huge.toml --backends serial --precisions float --sizes 16,46340 -n 1

# ---- galbraith_gemm: a 10^5 x 10^5 x 10^5 product (240 GB of A, B and C in double)
printf 'name = "gemm_huge"\n[model]\nkind = "galbraith_gemm"\n[simulation]\nsteps = 1\n[gemm]\nm = 100000\nn = 100000\nk = 100000\n' > gemm_huge.toml
refused_small gemm_huge 0 "needs .* of host memory but .* are available; a product of size at most [0-9]* fits" \
  run gemm_huge.toml -b serial -o out_gemm_huge --no-plots
compare_none gemm_compare_none 0 gemm_huge.toml --backends serial --precisions float --sizes 100000 -n 1
compare_some gemm_compare_some 0 gemm_huge.toml --backends serial --precisions float --sizes 32,100000 -n 1

# ---- galbraith_decoder: 10^5 single units over 10 s of training (about 100 GB in float, most of it units x units
# matrices); 8000 neurons decoded
# as 8 multi-units, whose run fits a 1.6 GB address space but whose picture's other estimate (8000 single units,
# decoded at the end from the same spikes) does not: the old plan let the run start and fail at its end
printf 'name = "dec_huge"\n[model]\nkind = "galbraith_decoder"\n[simulation]\nsteps = 1\ndt = 0.25\nprecision = "float"\ntrains = "su"\n[population]\nneurons = 100000\ngroup = 1000\n[stimulus]\ntrain_s = 10\ntest_s = 2\n' > dec_huge.toml
refused_small dec_huge 0 "100000 neurons decoded over 40000 training samples .* need about .* but .* free; at most [0-9]* neurons fit" \
  run dec_huge.toml -b serial -o out_dec_huge --no-plots
sed -e 's/^neurons = 100000/neurons = 8000/' -e 's/^trains = "su"/trains = "mu"/' -e 's/dec_huge/dec_mu/' dec_huge.toml > dec_mu.toml
refused_small dec_mu 1600000 "8000 neurons decoded .* (multi units, then single units for the picture's other estimate) need about .*; at most [0-9]* neurons fit" \
  run dec_mu.toml -b serial -o out_dec_mu --no-plots
compare_none dec_compare_none 0 dec_huge.toml --backends serial --precisions float --sizes 100000 --variants su -n 1
compare_some dec_compare_some 0 dec_huge.toml --backends serial --precisions float --sizes 20,100000 --variants su -n 1

# ---- the point model's sweeps (its runs: tests/cli/memory_refusal.sh; the IO model's sweeps:
# tests/cli/bad_arguments.sh), under a 3 GB address space
# (a point plan that does not fit stops the sweep: sizes here pass the plan, 96 bytes a neuron, and not the run's
# check of their 6e8 synapses)
printf 'name = "lif_sweep"\n[model]\nkind = "lif"\n[simulation]\nsteps = 2\n[network]\ntype = "fixed_in_degree"\nneurons = 400\nexcitatory = 320\nin_degree = 300\nw_exc = 1\nw_inh = 1\n' > lif_sweep.toml
compare_none point_compare_none 3000000 lif_sweep.toml --backends serial --precisions float --sizes 2000000 -n 1
compare_some point_compare_some 3000000 lif_sweep.toml --backends serial --precisions float --sizes 400,2000000 -n 1

echo "memory_refusal_models: all passed"
