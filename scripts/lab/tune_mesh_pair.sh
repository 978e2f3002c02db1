#!/usr/bin/env bash
# The CUDA two-step mesh kernel's tile rows and launch bounds (bench/lab/io_mesh_pair_tune.cpp) on one GPU machine:
# each variant checked bit for bit against one-step launches, then timed against them, at the given sides.
#   scripts/lab/tune_mesh_pair.sh [OUT] [SIDE ...]      (default sides: 1024 1006)
# Needs nvcc; builds a CUDA Kokkos from the bundled source once (scripts/lab/probe_kokkos.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$here/out/tune_mesh_pair}"
shift || true
mkdir -p "$out"
source "$here/scripts/lab/probe_kokkos.sh"
probe_kokkos "$out/kokkos.log"
probe_compile "$here/bench/lab/io_mesh_pair_tune.cpp" "$out/tune" "$out/build.log" "$here"
grep -A2 'Function properties for.*\(IoMeshPair\|PartsFunctor\|IoStepFunctor\)' "$out/build.log" |
  grep -o 'IoMeshPairFunctorINS_4CudaE[df]\|PartsFunctorI[df]Li[0-9]\|IoStepFunctorINS_4CudaE[df]\|LaunchBoundsILj[0-9]*ELj[0-9]*\|Used [0-9]* registers\|[0-9]* bytes spill stores' |
  paste -sd' ' | sed 's/ IoStep/\nIoStep/g; s/ IoMesh/\nIoMesh/g; s/ [0-9]*PartsF/\nPartsF/g' | tee "$out/registers.txt"
sides=("$@")
[ ${#sides[@]} -gt 0 ] || sides=(1024 1006)
for side in "${sides[@]}"; do "$out/tune" $side 2>&1 | grep side; done | tee "$out/tune.txt"
