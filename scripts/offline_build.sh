#!/usr/bin/env bash
# On an offline machine: unpacks .offline/debs into a private sysroot and builds kbrain against it with the
# bundled Kokkos in .offline/kokkos. Usage: scripts/offline_build.sh [host|cuda] [extra cmake args]
# Prints the build folder. Export the same LD_LIBRARY_PATH it uses before running the binaries:
#   export LD_LIBRARY_PATH=/tmp/kbrain-sysroot/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
variant="${1:-cuda}"
shift || true
root=/tmp/kbrain-sysroot
if [ ! -d "$root/usr/include/toml++" ]; then
  mkdir -p "$root"
  for d in "$here"/.offline/debs/*.deb; do dpkg -x "$d" "$root"; done
fi
export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
"$here/scripts/build.sh" "$variant" -DCMAKE_PREFIX_PATH="$root/usr" -DKBRAIN_KOKKOS_SOURCE="$here/.offline/kokkos" \
  -DKBRAIN_USE_BUNDLED_KOKKOS=ON "$@"
