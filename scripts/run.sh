#!/usr/bin/env bash
# The main job: set up (packages, Kokkos), build, list the backends and run the default comparison
# (IO mesh sweep, laptop sizes) on every backend present; prints the speedup table.
# A GPU build is added automatically when nvcc and an NVIDIA GPU are present.
#   scripts/run.sh [experiment.toml] [extra `kbrain compare` options]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup_deps.sh"
variant=host
if { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; } && command -v nvidia-smi >/dev/null \
   && nvidia-smi -L >/dev/null 2>&1; then
  variant=cuda
fi
build="$("$here/scripts/build.sh" "$variant")"
exp="${1:-$here/experiments/io_mesh_sweep.toml}"
shift || true
export OMP_PROC_BIND="${OMP_PROC_BIND:-spread}" OMP_PLACES="${OMP_PLACES:-threads}"
"$build/experiments/program/kbrain" backends
"$build/experiments/program/kbrain" compare "$exp" "$@"
