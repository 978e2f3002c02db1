#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build the CUDA variant, run the whole test suite (CUDA backend included), list
# the backends, run the mesh comparison and the IO-step benchmarks; logs and tables go to $1 (default out/gpu).
# Offline machines: run scripts/offline_bundle.sh on a networked machine first and bring .offline/ along.
#   KBRAIN_GPU_STAGES  which stages to run (default "build test compare bench"; "mpi" runs the MPI tests, the
#                      transport ping-pong, the 1-vs-2-GPU Gaussian 4M x 1000 runs and the model: docs/mpi.md)
#                      "sanitize" runs compute-sanitizer over a short run of every model (scripts/compute_sanitize.sh);
#                      "reproduce" runs `kbrain reproduce --scale full` (scripts/reproduce_gpu.sh) for
#                      KBRAIN_REPRODUCE_STUDIES (default: du_nguyen van_der_vlag wang)
#   KBRAIN_COMPARE_ARGS extra arguments for `kbrain compare` (default: mesh 256..2048, 2000 steps)
#   KBRAIN_CTEST_JOBS   ctest -j (default 8)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$here/out/gpu}"
mkdir -p "$out"
stages="${KBRAIN_GPU_STAGES:-build test compare bench}"
export KBRAIN_NO_PROGRESS=1 OMP_PROC_BIND=spread OMP_PLACES=threads
export KBRAIN_JOBS="${KBRAIN_JOBS:-$(nproc)}"
if [ -d "$here/.offline" ]; then
  export LD_LIBRARY_PATH="/tmp/kbrain-sysroot/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
  if [ "${KBRAIN_MPI:-1}" = 1 ] && ls "$here"/.offline/debs-mpi/*.deb >/dev/null 2>&1; then
    eval "$("$here/scripts/mpi_sysroot.sh")"  # Open MPI unpacked with dpkg -x (docs/mpi.md)
  fi
  builder=("$here/scripts/offline_build.sh" cuda)
else
  "$here/scripts/setup_deps.sh"
  builder=("$here/scripts/build.sh" cuda)
  case " $stages " in *" mpi "*) builder+=(-DKBRAIN_ENABLE_MPI=ON) ;; esac
fi
build="$here/build/cuda"
rc=0
for stage in $stages; do
  echo "=== $stage ($(date -u +%H:%M:%S))"
  case "$stage" in
    build) "${builder[@]}" >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; } ;;
    test) (cd "$build" && ctest -j"${KBRAIN_CTEST_JOBS:-8}" --output-on-failure 2>&1 | tee "$out/ctest.log" | tail -25) || rc=1 ;;
    sanitize) "$here/scripts/compute_sanitize.sh" "$build" "$out/compute_sanitize" > "$out/compute_sanitize.log" 2>&1 || rc=1
      cat "$out/compute_sanitize/summary.md" ;;
    reproduce)
      # shellcheck disable=SC2086
      KBRAIN_REPRODUCE_OUT="$out/reproduce" "$here/scripts/reproduce_gpu.sh" "$build" \
        ${KBRAIN_REPRODUCE_STUDIES:-du_nguyen van_der_vlag wang} || rc=1 ;;
    compare)
      "$build/experiments/program/kbrain" backends | tee "$out/backends.txt"
      # shellcheck disable=SC2086
      "$build/experiments/program/kbrain" compare "$here/experiments/io_du_nguyen_mesh.toml" \
        ${KBRAIN_COMPARE_ARGS:---sizes 256,512,1024,2048 --steps 2000} -o "$out/compare" 2>"$out/compare.err" \
        | tee "$out/compare.txt" || { rc=1; tail -20 "$out/compare.err"; } ;;
    mpi)
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      (cd "$build" && ctest -L mpi --output-on-failure 2>&1 | tee "$out/ctest_mpi.log" | tail -15) || rc=1
      "${KBRAIN_MPIEXEC:-mpirun}" --oversubscribe -n 2 "$build/experiments/kbrain_mpi_pingpong" 50 \
        > "$out/pingpong.csv" 2>"$out/pingpong.err" || rc=1
      KBRAIN_BIN="$build/experiments/program/kbrain" "$here/scripts/mpi_scaling.sh" "$out/mpi" gpu || rc=1
      python3 "$here/scripts/mpi_model.py" --pingpong "$out/pingpong.csv" --single "$out/mpi/gpu_single/run.json" \
        | tee "$out/mpi_model.md" || rc=1 ;;
    bench)
      "$build/bench/kbrain_bench" --benchmark_min_time=0.3 --benchmark_filter="${KBRAIN_BENCH_FILTER:-.}" \
        --benchmark_out="$out/bench.json" --benchmark_out_format=json 2>&1 | tee "$out/bench.txt" | tail -60 || rc=1 ;;
  esac
done
exit $rc
