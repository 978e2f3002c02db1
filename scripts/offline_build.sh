#!/usr/bin/env bash
# On an offline machine: unpacks .offline/debs into a private sysroot and builds kbrain against it with the
# bundled Kokkos in .offline/kokkos. Usage: scripts/offline_build.sh [host|cuda] [extra cmake args]
# Prints the build folder. Export the same LD_LIBRARY_PATH it uses before running the binaries:
#   export LD_LIBRARY_PATH=/tmp/kbrain-sysroot/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
# With .offline/debs-mpi present it also unpacks Open MPI (scripts/mpi_sysroot.sh) and builds with
# -DKBRAIN_ENABLE_MPI=ON; before running under mpirun: eval "$(scripts/mpi_sysroot.sh)"
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
variant="${1:-cuda}"
shift || true
root=/tmp/kbrain-sysroot
if [ ! -d "$root/usr/include/toml++" ] || [ ! -d "$root/usr/include/stb" ]; then
  mkdir -p "$root"
  for d in "$here"/.offline/debs/*.deb; do dpkg -x "$d" "$root"; done
fi
export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
# Open MPI from .offline/debs-mpi (scripts/mpi_sysroot.sh, docs/mpi.md) when it was bundled; KBRAIN_MPI=0 skips it.
mpi_args=()
if [ "${KBRAIN_MPI:-1}" = 1 ] && ls "$here"/.offline/debs-mpi/*.deb >/dev/null 2>&1; then
  eval "$("$here/scripts/mpi_sysroot.sh")"
  # shellcheck disable=SC2206
  mpi_args=(-DKBRAIN_ENABLE_MPI=ON $KBRAIN_MPI_CMAKE_ARGS)
fi
"$here/scripts/build.sh" "$variant" -DCMAKE_PREFIX_PATH="$root/usr" -DKBRAIN_KOKKOS_SOURCE="$here/.offline/kokkos" \
  -DKBRAIN_KOKKOS_KERNELS_SOURCE="$here/.offline/kokkos-kernels" \
  -DKBRAIN_USE_BUNDLED_KOKKOS=ON "${mpi_args[@]}" "$@"
