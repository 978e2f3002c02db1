#!/usr/bin/env bash
# The spiking benchmarks on the host backends (issue 56's workloads): `kbrain run` of COBA 4000 and 16 000, CUBA 4000,
# COBAHH 4000 and the Izhikevich 2003 network, 1 s of biology, Serial and OpenMP (THREADS threads), double and float,
# REPEATS times each; with a reference kbrain, its runs interleaved with these (the same order every round). Prints
# one line per run and then a table of median simulation times (run.json simulate_s) and rates.
#   scripts/cpu_baseline.sh KBRAIN [REFERENCE_KBRAIN] > table.md
#   THREADS (default: nproc)  REPEATS (default 3)  BACKENDS (default "serial openmp")  ONLY (regex over workload names)
# Outputs of the runs go to a temporary folder, removed at the end. docs/performance.md, "Spiking networks on the host".
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
new="$(realpath "${1:?usage: cpu_baseline.sh KBRAIN [REFERENCE_KBRAIN]}")"
ref="${2:+$(realpath "$2")}"
threads="${THREADS:-$(nproc)}"
repeats="${REPEATS:-3}"
backends="${BACKENDS:-serial openmp}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export KBRAIN_NO_PROGRESS=1 OMP_PROC_BIND="${OMP_PROC_BIND:-spread}" OMP_PLACES="${OMP_PLACES:-threads}"
cd "$here"
runs="$work/runs.txt"
: > "$runs"
versions=(new)
[ -n "$ref" ] && versions=(reference new)
for spec in coba:4000 coba:16000 cuba:4000 cobahh:4000 izhikevich2003:1000; do
  exp=${spec%%:*}; size=${spec##*:}
  if [ -n "${ONLY:-}" ] && ! [[ "$exp-$size" =~ $ONLY ]]; then continue; fi
  for b in $backends; do
    for p in double float; do
      for r in $(seq "$repeats"); do
        for v in "${versions[@]}"; do
          bin="$new"; [ "$v" = reference ] && bin="$ref"
          t=1; [ "$b" = openmp ] && t="$threads"
          out="$work/out"
          rm -rf "$out"
          if ! "$bin" --threads "$t" run "experiments/$exp.toml" -b "$b" -p "$p" --size "$size" -o "$out" --no-plots \
              > "$work/log.txt" 2>&1; then
            echo "$exp $size $b $t $p $v $r FAILED: $(tail -1 "$work/log.txt")" >&2
            continue
          fi
          python3 - "$out/run.json" "$exp $size $b $t $p $v $r" <<'PY' | tee -a "$runs"
import json, sys
d = json.load(open(sys.argv[1]))
print(sys.argv[2], d["simulate_s"], d.get("rate_hz_exc", 0), d.get("rate_hz_inh", 0))
PY
        done
      done
    done
  done
done
python3 - "$runs" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    exp, size, b, t, p, v, r, s, re, ri = line.split()
    rows.setdefault((exp, size, b, t, p), {}).setdefault(v, []).append((float(s), float(re), float(ri)))
versions = sorted({v for d in rows.values() for v in d}, reverse=True)  # reference before new
head = "| workload | backend (threads) | precision | " + " | ".join(f"{v} s" for v in versions)
head += " | reference / new |" if len(versions) == 2 else " |"
print(head + " rate exc / inh (Hz) |")
print("|" + "---|" * (head.count("|") - 1 + 1))
for (exp, size, b, t, p), d in rows.items():
    med = {v: statistics.median(x[0] for x in d[v]) for v in d}
    cells = [f"{med[v]:.3f}" if v in med else "-" for v in versions]
    ratio = f" {med['reference'] / med['new']:.2f}× |" if len(versions) == 2 and len(med) == 2 else ""
    last = d.get("new", next(iter(d.values())))[-1]
    print(f"| {exp} {size} | {b} ({t}) | {p} | " + " | ".join(cells) + f" |{ratio} {last[1]:.2f} / {last[2]:.2f} |")
PY
