#!/usr/bin/env bash
# A/B of the CUDA IO mesh step between two source trees on one GPU machine: bench/lab/io_mesh_step_ab.cpp compiled
# against each tree's models/, run in 5 interleaved rounds at 1024 x 1024 (5.17 waves of the H200's 132 SMs) and
# 1006 x 1006 (4.99 waves), with ptxas' register and spill counts of each tree's double step.
#   scripts/lab/ab_io_mesh_step.sh TREE_A TREE_B [OUT]     e.g. TREE_A from: git worktree add /tmp/base <commit>
# Needs nvcc; builds a CUDA Kokkos from the bundled source once (KBRAIN_AB_KOKKOS, default /tmp/kbrain-ab-kokkos).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
a="$(cd "${1:?usage: scripts/lab/ab_io_mesh_step.sh TREE_A TREE_B [OUT]}" && pwd)"
b="$(cd "${2:?usage: scripts/lab/ab_io_mesh_step.sh TREE_A TREE_B [OUT]}" && pwd)"
out="${3:-$here/out/ab}"
mkdir -p "$out"
source "$here/scripts/lab/probe_kokkos.sh"
probe_kokkos "$out/kokkos.log"
build() {  # label tree
  probe_compile "$here/bench/lab/io_mesh_step_ab.cpp" "$out/ab_$1" "$out/build_$1.log" "$2"
  echo "$1 ($2): double step $(grep -A2 'Function properties for.*IoStepFunctor.*CudaEd' "$out/build_$1.log" |
    grep -o 'Used [0-9]* registers\|[0-9]* bytes spill stores' | paste -sd' ')"
}
build A "$a" & build B "$b" & wait
export OMP_PROC_BIND=spread OMP_PLACES=threads
for round in 1 2 3 4 5; do
  for t in A B; do "$out/ab_$t" "$t" 1024 2>/dev/null | grep side; done
done | tee "$out/rounds.txt"
for t in A B; do "$out/ab_$t" "$t" 1006 2>/dev/null | grep side; done | tee -a "$out/rounds.txt"
