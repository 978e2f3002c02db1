#!/usr/bin/env bash
# A/B of two source trees on a GPU machine (issue 20: the model-unit redesign must not change speed): builds the
# CUDA variant of this tree and of the tree in .oldtree/ (`git archive OLD | tar -x -C .oldtree`), each with the
# bundled Kokkos (an installed Kokkos 3.4 exports CUDA targets that CUDA 13's CMake files lack), then times the same runs alternately (old, new, old, new) so that both see the same machine state.
#   scripts/lab/ab_trees_gpu.sh build OUT     both trees (the new one with tests and MPI)
#   scripts/lab/ab_trees_gpu.sh test OUT      ctest of the new tree (CUDA backend included)
#   scripts/lab/ab_trees_gpu.sh io OUT        kbrain_bench IO mesh 1M float/double; Gaussian 4M x 1000 runs
#   scripts/lab/ab_trees_gpu.sh spiking OUT   COBAHH 1M x 200 and Wang 2012 1M x 200 runs
# Needs .offline/ (scripts/offline_bundle.sh). Prints one line per run: tree, case, simulate seconds.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
stage="${1:?stage}"
out="${2:-$here/out/ab}"
mkdir -p "$out"
root=/tmp/kbrain-sysroot
export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export KBRAIN_NO_PROGRESS=1 OMP_PROC_BIND=spread OMP_PLACES=threads
old="${KBRAIN_OLD_TREE:-$here/.oldtree}"  # a copy outside the carried folder keeps its build between calls
new_kbrain="$here/build/cuda/experiments/program/kbrain"
old_kbrain="$old/build/cuda/experiments/kbrain"  # the program moved to experiments/program in the new tree

simulate_s() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['simulate_s'])" "$1/run.json"; }

ab_run() {  # label, rounds, kbrain args...
  local label="$1" rounds="$2"; shift 2
  mkdir -p /tmp/ab
  for r in $(seq 1 "$rounds"); do
    for tree in old new; do
      local bin="$new_kbrain"; [ "$tree" = old ] && bin="$old_kbrain"
      local dir="/tmp/ab/$tree-$label-$r"
      rm -rf "$dir"
      if "$bin" run "$@" -o "$dir" >"$dir.log" 2>&1; then
        echo "$tree $label round $r simulate_s $(simulate_s "$dir") $(grep -o 'gap_kernel[^,]*' "$dir/run.json" | head -1)"
      else
        echo "$tree $label round $r FAILED: $(tail -2 "$dir.log")"
      fi
    done
  done
}

case "$stage" in
  build)
    eval "$("$here/scripts/mpi_sysroot.sh")"
    if [ ! -d "$root/usr/include/toml++" ]; then mkdir -p "$root"; for d in "$here"/.offline/debs/*.deb; do dpkg -x "$d" "$root"; done; fi
    t0=$(date +%s)
    ln -sfn "$here/.offline" "$old/.offline"
    (cd "$old" && KBRAIN_MPI=0 KBRAIN_JOBS=7 scripts/offline_build.sh cuda \
       -DKBRAIN_BUILD_TESTS=OFF >"$out/build_old.log" 2>&1; echo "old build exit $? after $(( $(date +%s) - t0 )) s") &
    (KBRAIN_JOBS=9 scripts/offline_build.sh cuda >"$out/build_new.log" 2>&1;
     echo "new build exit $? after $(( $(date +%s) - t0 )) s") &
    wait
    grep -E "error|warning" "$out"/build_*.log | grep -v "^.*-Wno" | head -20
    ;;
  test)
    eval "$("$here/scripts/mpi_sysroot.sh")"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    (cd "$here/build/cuda" && ctest --output-on-failure -j 4 2>&1 | tail -60)
    ;;
  io)
    for p in float double; do
      for r in 1 2; do
        for tree in old new; do
          b="$here/build/cuda/bench/kbrain_bench"; [ "$tree" = old ] && b="$old/build/cuda/bench/kbrain_bench"
          "$b" --benchmark_min_time=0.5 --benchmark_filter="^io_step/cuda/$p/1024x1024/mesh" 2>&1 |
            grep -E '^io_step|rror' | sed "s|^|$tree bench round $r |"
        done
      done
    done
    ab_run gaussian4m_float 2 "$here/experiments/io_mpi_gaussian_4m.toml" -b cuda -p float
    ab_run gaussian4m_double 2 "$here/experiments/io_mpi_gaussian_4m.toml" -b cuda -p double
    ab_run mesh1m_float 2 "$here/experiments/io_du_nguyen_mesh.toml" -b cuda -p float --size 1024 --steps 20000
    ab_run mesh1m_double 2 "$here/experiments/io_du_nguyen_mesh.toml" -b cuda -p double --size 1024 --steps 20000
    ;;
  spiking)
    ab_run cobahh1m 3 "$here/experiments/cobahh_1m.toml" -b cuda
    ab_run wang2012_1m 3 "$here/experiments/wang2012_1m.toml" -b cuda
    ;;
esac
