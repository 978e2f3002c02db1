#!/usr/bin/env bash
# Issue 5 measurements (docs/mpi.md, docs/performance.md "MPI"). Usage: scripts/mpi_scaling.sh OUT_DIR [stages]
#   stages (default "cpu gpu"):
#     cpu  strong and weak scaling with 1..16 CPU ranks (Serial backend, one core per rank, bound to cores):
#          Gaussian 3-D (bricks) and the mesh (tiles), via `kbrain compare --ranks`
#     weak only the weak-scaling Gaussian series of `cpu` (1,2,4,8,16 ranks x 32768 cells, density 100, 1000 steps:
#          about 3 minutes on a 16-core host; 1 and 2 ranks x 16384 cells x 200 steps took 8 s on a 2-core EPYC VM)
#     gpu  Gaussian 4M cells x 1000 junctions, 2000 steps, double: single process (fused kernel, and the default
#          kernel for reference), then KBRAIN_GPU_RANKS (default "1 2") ranks, one GPU each; checks that the traces
#          are byte-identical to the fused single process and prints the phase table; then the largest rank count
#          again with --phase-timing (fenced phases: per-rank compute, exchange and exchange % of the step) and with
#          --halo-exchange mpi (the default, auto, uses peer copies between GPUs of one node)
#     gpugrid  the van der Vlag grid on GPUs (issue 6): `kbrain compare --ranks` (fenced phases) for
#          io_vdvlag_{gaussian,uniform}.toml x KBRAIN_GRID_SIZES (default 1048576,2097152,4194304) x
#          KBRAIN_GRID_DENSITIES (default 10,100,1000) x KBRAIN_GPU_RANKS, KBRAIN_GRID_STEPS (default 400) steps,
#          double; KBRAIN_GRID_KINDS (default "gaussian uniform"); then a weak-scaling table read off the same runs
#          (size K x the smallest size on K ranks)
# Build first (MPI on), e.g. on the offline GPU machine:
#   eval "$(scripts/mpi_sysroot.sh)"; KBRAIN_JOBS=16 scripts/offline_build.sh cuda -DKBRAIN_ENABLE_MPI=ON $KBRAIN_MPI_CMAKE_ARGS
# Environment:
#   KBRAIN_BIN        kbrain executable (default build/cuda/experiments/program/kbrain, else build/host/experiments/program/kbrain)
#   KBRAIN_MPIEXEC    mpiexec (default: mpirun from PATH); KBRAIN_MPIEXEC_FLAGS extra flags (default --oversubscribe)
#   KBRAIN_CPU_RANKS  default 1,2,4,8,16      KBRAIN_CPU_STEPS default 1000
#   KBRAIN_WEAK_SIZE  cells per rank of the weak series, default 32768
#   KBRAIN_GPU_EXP    default experiments/io_mpi_gaussian_4m.toml      KBRAIN_GPU_RANKS default "1 2"
#   KBRAIN_GPU_BACKEND default cuda (another backend tries the gpu stages on a machine without a GPU)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: scripts/mpi_scaling.sh OUT_DIR [stages]}"
stages="${2:-cpu gpu}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
bin="${KBRAIN_BIN:-}"
if [ -z "$bin" ]; then
  bin="$here/build/cuda/experiments/program/kbrain"
  [ -x "$bin" ] || bin="$here/build/host/experiments/program/kbrain"
fi
mpiexec="${KBRAIN_MPIEXEC:-mpirun}"
flags="${KBRAIN_MPIEXEC_FLAGS:---oversubscribe}"
export KBRAIN_MPIEXEC="$(command -v "$mpiexec" || echo "$mpiexec")" KBRAIN_MPIEXEC_FLAGS="$flags"
export KBRAIN_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ranks="${KBRAIN_CPU_RANKS:-1,2,4,8,16}"
steps="${KBRAIN_CPU_STEPS:-1000}"
weak_size="${KBRAIN_WEAK_SIZE:-32768}"
# weak scaling, Gaussian 3-D (bricks), one core per rank
weak_gaussian() {
  OMP_NUM_THREADS=1 OMP_PROC_BIND=false KBRAIN_MPIEXEC_FLAGS="$flags --bind-to core --map-by core" \
    "$bin" compare "$here/experiments/io_vdvlag_gaussian.toml" --ranks "$ranks" --weak --sizes "$weak_size" \
    --steps "$steps" --backends serial --precisions double --partition bricks -o "$out/cpu_weak_gaussian" \
    2>"$out/cpu_weak_gaussian.err" | tee "$out/cpu_weak_gaussian.md"
}
{
  "$here/scripts/describe_environment.sh"
  echo "kbrain: $bin"; "$bin" backends 2>&1 | head -20
  echo "mpiexec: $KBRAIN_MPIEXEC $flags"; "$KBRAIN_MPIEXEC" --version 2>&1 | head -1
} | tee "$out/environment.txt"
rc=0
for stage in $stages; do
  echo "=== $stage ($(date -u +%H:%M:%S))"
  case "$stage" in
    cpu)
      # one core per rank: Serial backend, OMP_NUM_THREADS=1, ranks bound to cores
      export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
      export KBRAIN_MPIEXEC_FLAGS="$flags --bind-to core --map-by core"
      "$bin" compare "$here/experiments/io_vdvlag_gaussian.toml" --ranks "$ranks" --sizes 262144 --steps "$steps" \
        --backends serial --precisions double --partition bricks -o "$out/cpu_strong_gaussian" \
        2>"$out/cpu_strong_gaussian.err" | tee "$out/cpu_strong_gaussian.md" || rc=1
      weak_gaussian || rc=1
      "$bin" compare "$here/experiments/io_mesh_sweep.toml" --ranks "$ranks" --sizes 512 --steps "$steps" \
        --backends serial --precisions double --partition tiles -o "$out/cpu_strong_mesh" \
        2>"$out/cpu_strong_mesh.err" | tee "$out/cpu_strong_mesh.md" || rc=1
      export KBRAIN_MPIEXEC_FLAGS="$flags" ;;
    weak)
      t0=$(date +%s)
      weak_gaussian || rc=1
      echo "weak series: $(( $(date +%s) - t0 )) s" ;;
    gpu)
      exp="${KBRAIN_GPU_EXP:-$here/experiments/io_mpi_gaussian_4m.toml}"
      gpu_ranks="${KBRAIN_GPU_RANKS:-1 2}"
      kmax=$(echo $gpu_ranks | tr ' ' '\n' | sort -n | tail -1)
      # the fused CSR kernel, as every MPI rank uses: the traces must then be byte-identical (the single-process
      # default for this network is the tiled kernel, which sums in another order: run too, for reference)
      "$bin" run "$exp" -b "${KBRAIN_GPU_BACKEND:-cuda}" --gap-kernel fused -o "$out/gpu_single" > "$out/gpu_single.log" 2>&1 || rc=1
      "$bin" run "$exp" -b "${KBRAIN_GPU_BACKEND:-cuda}" -o "$out/gpu_single_default" > "$out/gpu_single_default.log" 2>&1 || rc=1
      runs="gpu_single gpu_single_default"
      for k in $gpu_ranks; do
        # shellcheck disable=SC2086
        "$KBRAIN_MPIEXEC" $flags -n $k "$bin" run "$exp" -b "${KBRAIN_GPU_BACKEND:-cuda}" -o "$out/gpu_ranks$k" > "$out/gpu_ranks$k.log" 2>&1 || rc=1
        runs="$runs gpu_ranks$k"
      done
      # shellcheck disable=SC2086
      "$KBRAIN_MPIEXEC" $flags -n $kmax "$bin" run "$exp" -b "${KBRAIN_GPU_BACKEND:-cuda}" -o "$out/gpu_ranks${kmax}_phases" --phase-timing \
        > "$out/gpu_ranks${kmax}_phases.log" 2>&1 || rc=1
      runs="$runs gpu_ranks${kmax}_phases"
      if [ "$kmax" -gt 1 ]; then  # the largest rank count with the halo through MPI too (auto = peer copies on one node)
        # shellcheck disable=SC2086
        "$KBRAIN_MPIEXEC" $flags -n $kmax "$bin" run "$exp" -b "${KBRAIN_GPU_BACKEND:-cuda}" --halo-exchange mpi \
          -o "$out/gpu_ranks${kmax}_mpi" > "$out/gpu_ranks${kmax}_mpi.log" 2>&1 || rc=1
        runs="$runs gpu_ranks${kmax}_mpi"
      fi
      for r in $runs; do cat "$out/$r.log"; done
      for r in $runs; do
        [ "$r" = gpu_single ] || [ "$r" = gpu_single_default ] && continue
        if cmp -s "$out/gpu_single/trace.csv" "$out/$r/trace.csv"; then echo "trace $r: identical to single process"
        else echo "trace $r: DIFFERS from single process"; rc=1; fi
      done
      python3 - "$out" $runs <<'PY' | tee "$out/gpu_table.md"
import json, sys, os
out = sys.argv[1]
rows = []
for name in sys.argv[2:]:
    try:
        m = json.load(open(os.path.join(out, name, "run.json")))
    except Exception as e:
        print(f"{name}: no run.json ({e})"); continue
    rows.append((name, m))
print("| run | ranks | gap kernel | halo exchange | generate s | plan s | simulate s | ms/step | compute s | exchange wait s | wait % of simulate |")
print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
for name, m in rows:
    sim = m.get("simulate_s", 0); wait = m.get("exchange_wait_s", 0)
    print(f"| {name} | {int(m.get('ranks', 1))} | {m.get('gap_kernel', 'fused (MPI)')} | {m.get('halo_exchange', '-')} | "
          f"{m.get('generate_s', 0):.2f} | "
          f"{m.get('plan_s', 0):.2f} | {sim:.2f} | {1000 * sim / m['steps']:.2f} | {m.get('compute_s', sim):.2f} | "
          f"{wait:.2f} | {100 * wait / sim:.1f} |")
d = dict(rows)
for name, m in rows:
    if not name.startswith("gpu_ranks") or name.endswith("_phases"): continue
    if name.endswith("_mpi"): print(f"\n({name}: the halo through MPI)", end="")
    k = int(m.get("ranks", 1))
    if "gpu_ranks1" in d:
        print(f"\nsimulate speedup {k} GPUs vs 1 rank: {d['gpu_ranks1']['simulate_s'] / m['simulate_s']:.2f}x", end="")
    if "gpu_single" in d:
        print(f"; vs single process (fused): {d['gpu_single']['simulate_s'] / m['simulate_s']:.2f}x", end="")
    if "gpu_single_default" in d:
        print(f"; vs single process (default kernel): {d['gpu_single_default']['simulate_s'] / m['simulate_s']:.2f}x", end="")
print()
for name, m in rows:
    if not name.endswith("_phases"): continue
    print(f"\nfenced phases (--phase-timing), {int(m.get('ranks', 0))} GPUs:")
    print("| rank | simulate s | compute s | exchange wait s | exchange s | exchange % of step |")
    print("|---:|---:|---:|---:|---:|---:|")
    for q in range(int(m.get("ranks", 0))):
        g = lambda k: m.get(f"rank{q}_{k}", 0)
        print(f"| {q} | {g('simulate_s'):.3f} | {g('compute_s'):.3f} | {g('exchange_wait_s'):.3f} | "
              f"{g('exchange_s'):.3f} | {100 * g('exchange_fraction'):.1f} |")
    print(f"exchange fraction: {100 * m.get('exchange_fraction_max', 0):.1f} % max over ranks (target <= 10 %)")
PY
      ;;
    gpugrid)
      gpu_ranks="$(echo ${KBRAIN_GPU_RANKS:-1 2} | tr ' ' ',')"
      for kind in ${KBRAIN_GRID_KINDS:-gaussian uniform}; do
        t0=$(date +%s)
        "$bin" compare "$here/experiments/io_vdvlag_$kind.toml" --ranks "$gpu_ranks" \
          --sizes "${KBRAIN_GRID_SIZES:-1048576,2097152,4194304}" --densities "${KBRAIN_GRID_DENSITIES:-10,100,1000}" \
          --steps "${KBRAIN_GRID_STEPS:-400}" --backends "${KBRAIN_GPU_BACKEND:-cuda}" --precisions double -o "$out/gpugrid_$kind" \
          2>"$out/gpugrid_$kind.err" > "$out/gpugrid_$kind.md" || rc=1
        echo "gpugrid $kind: $(( $(date +%s) - t0 )) s"
        python3 - "$out/gpugrid_$kind/compare_ranks.csv" <<'PY' | tee "$out/gpugrid_${kind}_summary.md"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    for k in ("size", "density", "ranks", "simulate_s", "exchange_pct", "steps", "cells"): r[k] = float(r[k])
by = {(r["size"], r["density"], int(r["ranks"])): r for r in rows}
ranks = sorted({int(r["ranks"]) for r in rows}); sizes = sorted({r["size"] for r in rows})
dens = sorted({r["density"] for r in rows})
print("Strong scaling: ms/step (speedup vs 1 rank, exchange % max over ranks)\n")
print("| cells | density | " + " | ".join(f"{k} GPU" for k in ranks) + " |")
print("|---:|---:|" + "---:|" * len(ranks))
for s in sizes:
    for d in dens:
        cells = []
        for k in ranks:
            r = by.get((s, d, k)); r1 = by.get((s, d, ranks[0]))
            if not r: cells.append("-"); continue
            ms = 1000 * r["simulate_s"] / r["steps"]
            sp = r1["simulate_s"] / r["simulate_s"] if r1 else float("nan")
            cells.append(f"{ms:.2f} ({sp:.2f}x, {r['exchange_pct']:.0f} %)")
        print(f"| {int(s)} | {int(d)} | " + " | ".join(cells) + " |")
print("\nWeak scaling read off the same runs (smallest size per rank): efficiency T1 / TK\n")
s0 = sizes[0]
print("| cells per rank | density | " + " | ".join(f"{k} GPU" for k in ranks) + " |")
print("|---:|---:|" + "---:|" * len(ranks))
for d in dens:
    r1 = by.get((s0, d, ranks[0]))
    cells = []
    for k in ranks:
        r = by.get((s0 * k / ranks[0], d, k))
        cells.append(f"{r1['simulate_s'] / r['simulate_s']:.2f}" if r and r1 else "-")
    print(f"| {int(s0 / ranks[0])} | {int(d)} | " + " | ".join(cells) + " |")
PY
      done ;;
    *) echo "unknown stage $stage" >&2; rc=2 ;;
  esac
done
exit $rc
