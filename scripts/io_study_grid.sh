#!/usr/bin/env bash
# Issue 3's remaining measurements, in one script for one GPU-machine session (docs/performance.md records them).
#   scripts/io_study_grid.sh OUT [stages]      stages (default "simd omp grid"):
#     simd  Serial SIMD kernel vs the straightforward scalar kernel, one core (goal: >= 2x)
#     omp   OpenMP IO step on the 1M-cell mesh with 1, 2, 4, 8, 16 threads: parallel efficiency (goal: >= 75 % at 16)
#     grid  `kbrain compare` on the van der Vlag grid of experiments/io_vdvlag_{uniform,gaussian}.toml ([compare]:
#           65 536 .. 4 194 304 cells x densities 10, 100, 1000, double), 2000 steps, every backend present (slow
#           backends on the sizes their budget allows, see max_slow_cell_steps)
# Environment: KBRAIN_BUILD (default build/cuda, else build/host), KBRAIN_GRID_SIZES / KBRAIN_GRID_PRECISIONS /
#   KBRAIN_GRID_DENSITIES / KBRAIN_GRID_BACKENDS (override the files' lists; e.g. the grid in chunks that fit one
#   device call each: KBRAIN_GRID_DENSITIES=1000 KBRAIN_GRID_SIZES=2097152,4194304), KBRAIN_GRID_KINDS (default "uniform gaussian"), KBRAIN_GRID_STEPS (default 2000),
#   KBRAIN_OMP_THREADS (default "1 2 4 8 16").
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: scripts/io_study_grid.sh OUT [stages]}"
stages="${2:-simd omp grid}"
mkdir -p "$out"
build="${KBRAIN_BUILD:-$here/build/cuda}"
[ -x "$build/experiments/kbrain" ] || build="$here/build/host"
bench="$build/bench/kbrain_bench"
export KBRAIN_NO_PROGRESS=1
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$here" rev-parse --short=10 HEAD 2>/dev/null)"
  echo "host: $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  nvidia-smi -L 2>/dev/null
} | tee "$out/environment.txt"
rc=0
for stage in $stages; do
  echo "=== $stage ($(date -u +%H:%M:%S))"
  case "$stage" in
    simd)
      OMP_NUM_THREADS=1 "$bench" --benchmark_min_time=0.3 \
        --benchmark_filter='io_step(_scalar)?/serial/(float|double)/256x256/(mesh|csr)' 2>/dev/null |
        tee "$out/simd.txt" || rc=1 ;;
    omp)
      for t in ${KBRAIN_OMP_THREADS:-1 2 4 8 16}; do
        OMP_NUM_THREADS=$t OMP_PROC_BIND=spread OMP_PLACES=cores "$bench" --benchmark_min_time=0.3 \
          --benchmark_filter='^io_step/openmp/(float|double)/1024x1024/mesh' 2>/dev/null |
          sed "s/^io_step/threads=$t io_step/" | grep io_step
      done | tee "$out/omp.txt" || rc=1
      python3 - "$out/omp.txt" <<'PY' | tee "$out/omp_efficiency.md"
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"threads=(\d+) io_step/openmp/(\w+)/.*?ns_per_cell_step=([0-9.]+)", line)
    if m: rows.setdefault(m.group(2), {})[int(m.group(1))] = float(m.group(3))
print("| precision | threads | ns/cell-step | speedup | efficiency |\n|---|---:|---:|---:|---:|")
for prec, by in rows.items():
    t1 = by.get(1)
    for t in sorted(by):
        s = t1 / by[t] if t1 else float("nan")
        print(f"| {prec} | {t} | {by[t]:.2f} | {s:.2f} | {100 * s / t:.0f} % |")
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
        "$build/experiments/kbrain" compare "$here/experiments/io_vdvlag_$kind.toml" --steps "${KBRAIN_GRID_STEPS:-2000}" \
          "${extra[@]}" -o "$out/grid_$kind" 2>"$out/grid_$kind.err" | tee "$out/grid_$kind.md" ||
          { rc=1; tail -5 "$out/grid_$kind.err"; }
      done ;;
    *) echo "unknown stage $stage" >&2; rc=2 ;;
  esac
done
exit $rc
