#!/usr/bin/env bash
# Prepares what an offline machine (e.g. a lent GPU machine with CMake, g++ and nvcc but no apt/network) needs to
# build kbrain: the Debian packages of kbrain's build dependencies (downloaded here, unpacked there with dpkg -x) and
# the patched Kokkos source. Result: .offline/ (ignored by git) — copy or carry it with the tree.
#   On the offline machine:  scripts/offline_build.sh   (unpacks into /tmp/kbrain-sysroot and builds CUDA)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/fetch_kokkos.sh"
dest="$here/.offline"
mkdir -p "$dest/debs"
pkgs=(libfmt-dev libfmt9 libtomlplusplus-dev libcli11-dev librandom123-dev doctest-dev libbenchmark-dev
      libbenchmark1debian)
(cd "$dest/debs" && apt-get download "${pkgs[@]}" >&2)
rm -rf "$dest/kokkos"
cp -r "${KBRAIN_DEPS_DIR:-$here/.deps}/kokkos" "$dest/kokkos"
du -sh "$dest" >&2
