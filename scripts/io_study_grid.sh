#!/usr/bin/env bash
# Issue 3's remaining measurements, in one script for one GPU-machine session (docs/performance.md records them).
#   scripts/io_study_grid.sh OUT [stages]      stages (default "simd omp grid"):
#     simd  Serial SIMD kernel vs the straightforward scalar kernel, one core (goal: >= 2x)
#     omp   OpenMP IO step on the 1M-cell mesh with 1, 2, 4, 8, 16 threads: parallel efficiency (goal: >= 75 % at 16),
#           and the step's bytes/s against a copy kernel's at the same thread count (is it memory-bound?)
#     grid  `kbrain compare` on the van der Vlag grid of experiments/io_vdvlag_{uniform,gaussian}.toml ([compare]:
#           65 536 .. 4 194 304 cells x densities 10, 100, 1000, double), 2000 steps, every backend present (slow
#           backends on the sizes their budget allows, see max_slow_cell_steps)
# Environment: KBRAIN_BUILD (default build/cuda, else build/host), KBRAIN_GRID_SIZES / KBRAIN_GRID_PRECISIONS /
#   KBRAIN_GRID_DENSITIES / KBRAIN_GRID_BACKENDS (override the files' lists; e.g. the grid in chunks that fit one
#   device call each: KBRAIN_GRID_DENSITIES=1000 KBRAIN_GRID_SIZES=2097152,4194304), KBRAIN_GRID_KINDS (default "uniform gaussian"), KBRAIN_GRID_STEPS (default 2000),
#   KBRAIN_OMP_THREADS (default "1 2 4 8 16"), KBRAIN_OMP_SIZES (meshes of the omp stage, a regex alternation;
#   default 1024x1024, e.g. "256x256|1024x1024": 256^2 keeps its state in the last-level cache), KBRAIN_OMP_BIND and
#   KBRAIN_OMP_PLACES (the omp stage's OMP_PROC_BIND and OMP_PLACES, default spread and cores; e.g. on a 32-vCPU host
#   KBRAIN_OMP_PLACES="{0}:16:2" puts 16 threads on every other vCPU).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: scripts/io_study_grid.sh OUT [stages]}"
stages="${2:-simd omp grid}"
mkdir -p "$out"
build="${KBRAIN_BUILD:-$here/build/cuda}"
[ -x "$build/experiments/program/kbrain" ] || build="$here/build/host"
bench="$build/bench/kbrain_bench"
export KBRAIN_NO_PROGRESS=1
"$here/scripts/describe_environment.sh" | tee "$out/environment.txt"
rc=0
for stage in $stages; do
  echo "=== $stage ($(date -u +%H:%M:%S))"
  case "$stage" in
    simd)
      # 5 repetitions in random order, medians: the lent VMs vary by 10-30 % between runs of a few iterations
      OMP_NUM_THREADS=1 "$bench" --benchmark_min_time=0.3 --benchmark_repetitions=5 \
        --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
        --benchmark_filter='io_step(_scalar)?/serial/(float|double)/256x256/(mesh|csr)' 2>/dev/null |
        tee "$out/simd.txt" || rc=1
      python3 - "$out/simd.txt" <<'PY' | tee "$out/simd_gain.md"
import re, sys
med = {}
for line in open(sys.argv[1]):
    m = re.match(r"(io_step(?:_scalar)?)/serial/(\w+)/256x256/(\w+)/real_time_median .*?ns_per_cell_step=([0-9.]+)", line)
    if m: med[(m.group(1), m.group(2), m.group(3))] = float(m.group(4))
print("| layout | precision | SIMD ns/cell-step (median of 5) | scalar | SIMD gain |")
print("|---|---|---:|---:|---:|")
for layout in ("mesh", "csr"):
    for prec in ("float", "double"):
        v, s = med.get(("io_step", prec, layout)), med.get(("io_step_scalar", prec, layout))
        if v and s: print(f"| {layout} | {prec} | {v:.1f} | {s:.1f} | {s / v:.2f}x |")
PY
      ;;
    omp)
      # the IO step and a plain copy kernel at each thread count: the copy's bandwidth is the roof the step's
      # bytes (bench/io_step_bytes.hpp) are measured against
      for t in ${KBRAIN_OMP_THREADS:-1 2 4 8 16}; do
        OMP_NUM_THREADS=$t OMP_PROC_BIND="${KBRAIN_OMP_BIND:-spread}" OMP_PLACES="${KBRAIN_OMP_PLACES:-cores}" "$bench" --benchmark_min_time=0.3 \
          --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
          --benchmark_filter="^io_step/openmp/(float|double)/(${KBRAIN_OMP_SIZES:-1024x1024})/mesh|^copy_bandwidth/openmp/kernel" \
          2>/dev/null | grep -E '^(io_step|copy_bandwidth).*_median ' | sed "s/^/threads=$t /"
      done | tee "$out/omp.txt" || rc=1
      python3 - "$out/omp.txt" <<'PY' | tee "$out/omp_efficiency.md"
import re, sys
unit = {"": 1, "k": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}  # SetBytesProcessed: 1024-based
def rate(text):  # bytes_per_second, e.g. 19.98G/s (GiB/s)
    m = re.search(r"bytes_per_second=([0-9.]+)([kMGT]?)/s", text)
    return float(m.group(1)) * unit[m.group(2)] if m else float("nan")
rows, copy = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"threads=(\d+) io_step/openmp/(\w+)/(\w+)/.*?ns_per_cell_step=([0-9.]+)", line)
    if m: rows.setdefault(f"{m.group(2)} {m.group(3)}", {})[int(m.group(1))] = (float(m.group(4)), rate(line))
    m = re.match(r"threads=(\d+) copy_bandwidth/openmp/kernel", line)
    if m: copy[int(m.group(1))] = rate(line)
print("| precision, mesh | threads | ns/cell-step | speedup | efficiency | step GiB/s | copy GiB/s | step / copy |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for prec, by in rows.items():
    t1 = by.get(1, (None,))[0]
    for t in sorted(by):
        ns, bw = by[t]
        s = t1 / ns if t1 else float("nan")
        c = copy.get(t, float("nan"))
        print(f"| {prec} | {t} | {ns:.2f} | {s:.2f} | {100 * s / t:.0f} % | {bw / 2**30:.1f} | {c / 2**30:.1f} | "
              f"{100 * bw / c:.0f} % |")
PY
      ;;
    grid)
      # the experiments' [compare] tables hold the grid (sizes, densities 10/100/1000, double); env overrides
      extra=()
      [ -n "${KBRAIN_GRID_SIZES:-}" ] && extra+=(--sizes "$KBRAIN_GRID_SIZES")
      [ -n "${KBRAIN_GRID_PRECISIONS:-}" ] && extra+=(--precisions "$KBRAIN_GRID_PRECISIONS")
      [ -n "${KBRAIN_GRID_DENSITIES:-}" ] && extra+=(--densities "$KBRAIN_GRID_DENSITIES")
      [ -n "${KBRAIN_GRID_BACKENDS:-}" ] && extra+=(--backends "$KBRAIN_GRID_BACKENDS")
      for kind in ${KBRAIN_GRID_KINDS:-uniform gaussian}; do
        "$build/experiments/program/kbrain" compare "$here/experiments/io_vdvlag_$kind.toml" --steps "${KBRAIN_GRID_STEPS:-2000}" \
          "${extra[@]}" -o "$out/grid_$kind" 2>"$out/grid_$kind.err" | tee "$out/grid_$kind.md" ||
          { rc=1; tail -5 "$out/grid_$kind.err"; }
      done ;;
    *) echo "unknown stage $stage" >&2; rc=2 ;;
  esac
done
exit $rc
