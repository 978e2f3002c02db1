#!/usr/bin/env bash
# OpenMPI without apt (the lent GPU machines): unpacks the Debian packages in .offline/debs-mpi (made by
# scripts/offline_bundle.sh) with dpkg -x into a private prefix and prints the environment that makes that copy
# work from there (Open MPI is relocatable through OPAL_PREFIX). Usage:
#   eval "$(scripts/mpi_sysroot.sh)"      # sets OPAL_PREFIX, PATH, LD_LIBRARY_PATH, KBRAIN_MPI_CMAKE_ARGS, KBRAIN_MPIEXEC
# then build with  scripts/build.sh cuda -DKBRAIN_ENABLE_MPI=ON $KBRAIN_MPI_CMAKE_ARGS
# and run with     $KBRAIN_MPIEXEC -n 2 build/cuda/experiments/program/kbrain run ...
#   KBRAIN_MPI_SYSROOT  where to unpack (default /tmp/kbrain-mpi-sysroot)
# The Debian packages carry no /usr/bin/mpirun or /usr/include/.../mpi symlinks (alternatives are made by their
# postinst scripts), so the real names are used: mpirun.openmpi, mpicxx.openmpi, <libdir>/openmpi/include.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="${KBRAIN_MPI_SYSROOT:-/tmp/kbrain-mpi-sysroot}"
debs="$here/.offline/debs-mpi"
if [ ! -x "$root/usr/bin/orterun" ]; then
  ls "$debs"/*.deb >/dev/null 2>&1 || { echo "mpi_sysroot: no .deb files in $debs (run scripts/offline_bundle.sh)" >&2; exit 1; }
  mkdir -p "$root"
  for d in "$debs"/*.deb; do dpkg -x "$d" "$root"; done
fi
lib="$root/usr/lib/x86_64-linux-gnu"
cat <<ENV
export OPAL_PREFIX="$root/usr"
export PMIX_PREFIX="$root/usr/lib/x86_64-linux-gnu/pmix2"
export PMIX_INSTALL_PREFIX="$root/usr/lib/x86_64-linux-gnu/pmix2"
export PMIX_MCA_mca_base_component_path="$root/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix"
export PATH="$root/usr/bin:\$PATH"
export LD_LIBRARY_PATH="$lib/openmpi/lib:$lib:\${LD_LIBRARY_PATH:-}"
export KBRAIN_MPI_CMAKE_ARGS="-DMPI_CXX_COMPILER=$root/usr/bin/mpicxx.openmpi -DMPIEXEC_EXECUTABLE=$root/usr/bin/mpirun.openmpi"
export KBRAIN_MPIEXEC="$root/usr/bin/mpirun.openmpi"
ENV
