#!/usr/bin/env bash
# Networks far larger than the machine are refused from the plan, before their memory is taken: exit 2, one line
# with the bytes needed and the largest size that fits, and a peak resident size of a few hundred MB at most
# (measured as the child's maximum RSS). The sizes need terabytes, so the refusal holds on any machine.
# Usage: memory_refusal.sh KBRAIN PYTHON WORKDIR
set -uo pipefail
kb="$1"; py="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
peak_limit_kb=300000

# refused_small NAME EXPECTED-TEXT ARGS...: kbrain ARGS exits 2 with one line holding EXPECTED-TEXT, peak RSS small
refused_small() {
  local name="$1" want="$2"; shift 2
  "$py" - "$kb" "$@" > "$name.rss" 2> "$name.err" <<'PY'
import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
  read -r rc peak < "$name.rss"
  [ "$rc" = 2 ] || fail "$name: exit $rc, not 2: $(cat "$name.err")"
  [ "$(wc -l < "$name.err")" = 1 ] || fail "$name: not one line on stderr: $(cat "$name.err")"
  grep -q -- "$want" "$name.err" || fail "$name: message lacks '$want': $(cat "$name.err")"
  [ "$peak" -lt "$peak_limit_kb" ] || fail "$name: peak RSS $peak kB before the refusal (limit $peak_limit_kb kB)"
  [ ! -e "out_$name" ] || fail "$name left an output folder"
  echo "$name: refused at a peak RSS of $peak kB"
}

# IO: a generated uniform network of 2e9 cells with 100 junctions each, on a CPU backend
printf 'name = "io_huge"\n[model]\nkind = "io"\n[simulation]\nsteps = 10\n[network]\ntype = "uniform"\ncells = 2000000000\ndensity = 100\n' > io_huge.toml
refused_small io_huge "cells with .* junctions need .* but .* is available; the largest network with .* junctions per cell that fits has [0-9]* cells" \
  run io_huge.toml -b serial -o out_io_huge --no-plots
printf 'name = "io_gauss"\n[model]\nkind = "io"\n[simulation]\nsteps = 10\n[network]\ntype = "gaussian3d"\ncells = 1000000000\ndensity = 1000\n' > io_gauss.toml
refused_small io_gauss "the largest network with .* junctions per cell that fits has [0-9]* cells" \
  run io_gauss.toml -b serial -o out_io_gauss --no-plots
# HH and LIF networks of 1e9 neurons with an in-degree of 1000 (1e12 synapses), on a CPU backend
for kind in hh lif; do
  printf 'name = "%s_huge"\n[model]\nkind = "%s"\n[simulation]\nsteps = 10\n[network]\ntype = "fixed_in_degree"\nneurons = 1000000000\nexcitatory = 800000000\nin_degree = 1000\nw_exc = 1\nw_inh = 1\n' "$kind" "$kind" > "${kind}_huge.toml"
  refused_small "${kind}_huge" "1000000000 neurons need .* GiB of host memory .* synapses but .* available .*; at most [0-9]* neurons of this network's rule fit" \
    run "${kind}_huge.toml" -b serial -o "out_${kind}_huge" --no-plots
done
echo "memory_refusal: all passed"
