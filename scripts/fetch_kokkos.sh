#!/usr/bin/env bash
# Provides a patched Kokkos 3.4.01 source tree for the bundled build, unless an installed Kokkos is used
# (KBRAIN_KOKKOS_ROOT / Kokkos_ROOT / CMAKE_PREFIX_PATH: CMake's find_package(Kokkos) is tried first).
#
# Kokkos is taken from Debian's `trilinos` source package (13.2, contains packages/kokkos = Kokkos 3.4.01):
#   apt-get source --download-only trilinos   (deb-src entry derived from the machine's own Debian source list)
# only packages/kokkos is extracted, then the patches in cmake/patches/*.patch are applied.
# Result: $KBRAIN_DEPS_DIR/kokkos (default <repo>/.deps/kokkos), reused on later runs. The downloaded tarball is kept
# outside the clone too ($KBRAIN_DOWNLOAD_CACHE, default ~/.cache/kbrain/download), so a fresh clone on the same
# machine (CI's) extracts it instead of downloading it again.
# Kokkos Kernels 3.4.01 (packages/kokkos-kernels of the same tarball; dense BLAS/LAPACK calls that dispatch to
# cuBLAS and a host BLAS) goes to $KBRAIN_DEPS_DIR/kokkos-kernels, unpatched.
# Those folders are self-contained: copy/carry them to a machine without network and build there.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="${KBRAIN_DEPS_DIR:-$here/.deps}"
dest="$deps/kokkos"
stamp="$dest/.kbrain-patched"
kernels="$deps/kokkos-kernels"
patches=("$here"/cmake/patches/*.patch)
want="$(cat "${patches[@]}" | sha256sum | cut -c1-16)"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$kernels/CMakeLists.txt" ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
mkdir -p "$deps/download"
shared_dl="${KBRAIN_DOWNLOAD_CACHE:-$HOME/.cache/kbrain/download}"
mkdir -p "$shared_dl" 2>/dev/null || shared_dl="$deps/download"

tarball="$(ls "$deps"/download/trilinos_13.2*.orig.tar.* "$shared_dl"/trilinos_13.2*.orig.tar.* 2>/dev/null | head -n1 || true)"
if [ -z "$tarball" ]; then
  # Add deb-src entries mirroring the machine's existing Debian 'deb' entries (no host is named here).
  if ! apt-get source --help >/dev/null 2>&1; then echo "[kokkos] apt-get missing" >&2; exit 1; fi
  srcfile=/etc/apt/sources.list.d/kbrain-deb-src.sources
  if [ ! -f "$srcfile" ]; then
    tmp="$(mktemp)"
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      # keep stanzas whose URIs serve Debian's main archive (those with Components: main and Types: deb)
      awk 'BEGIN{RS=""; ORS="\n\n"} /Types:[ \t]*deb([ \t\n]|$)/ && /Components:.*main/ {
             gsub(/Types:[ \t]*deb[^\n]*/, "Types: deb-src"); print }' "$f" >>"$tmp"
    done
    if [ -f /etc/apt/sources.list ]; then
      grep -E '^deb[[:space:]]' /etc/apt/sources.list | grep -v 'deb-src' | sed 's/^deb /deb-src /' \
        >"${srcfile%.sources}.list.tmp" || true
      if [ -s "${srcfile%.sources}.list.tmp" ]; then
        $SUDO mv "${srcfile%.sources}.list.tmp" /etc/apt/sources.list.d/kbrain-deb-src.list
      else rm -f "${srcfile%.sources}.list.tmp"; fi
    fi
    if [ -s "$tmp" ]; then $SUDO cp "$tmp" "$srcfile"; fi
    rm -f "$tmp"
    $SUDO apt-get update -qq
  fi
  echo "[kokkos] downloading Debian source package 'trilinos' (large, once) ..." >&2
  # The .dsc may be missing on some mirrors; the orig tarball is what matters, so tolerate a failed verification.
  (cd "$shared_dl" && apt-get source --download-only trilinos >&2) || true
  tarball="$(ls "$shared_dl"/trilinos_13.2*.orig.tar.* 2>/dev/null | head -n1 || true)"
  if [ -z "$tarball" ]; then
    echo "[kokkos] could not obtain trilinos 13.2 source tarball via apt-get source." >&2
    echo "         Install Kokkos yourself and pass -DKokkos_ROOT=<prefix>, or place the tarball in $deps/download/." >&2
    exit 1
  fi
fi

if [ ! -f "$kernels/CMakeLists.txt" ]; then
  echo "[kokkos] extracting packages/kokkos-kernels from $(basename "$tarball") ..." >&2
  rm -rf "$kernels" "$deps/kernels.tmp"
  mkdir -p "$deps/kernels.tmp"
  tar -xf "$tarball" -C "$deps/kernels.tmp" --wildcards '*/packages/kokkos-kernels/*'
  ksrc="$(find "$deps/kernels.tmp" -maxdepth 3 -type d -path '*/packages/kokkos-kernels' | head -n1)"
  if [ -z "$ksrc" ] || [ ! -f "$ksrc/CMakeLists.txt" ]; then
    echo "[kokkos] $(basename "$tarball") has no packages/kokkos-kernels" >&2; exit 1
  fi
  mv "$ksrc" "$kernels"
  rm -rf "$deps/kernels.tmp"
fi
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi

echo "[kokkos] extracting packages/kokkos from $(basename "$tarball") ..." >&2
rm -rf "$dest" "$deps/kokkos.tmp"
mkdir -p "$deps/kokkos.tmp"
tar -xf "$tarball" -C "$deps/kokkos.tmp" --wildcards '*/packages/kokkos/*'
src="$(find "$deps/kokkos.tmp" -maxdepth 3 -type d -path '*/packages/kokkos' | head -n1)"
if [ -z "$src" ] || [ ! -f "$src/CMakeLists.txt" ]; then
  echo "[kokkos] $(basename "$tarball") has no packages/kokkos" >&2; exit 1
fi
mv "$src" "$dest"
rm -rf "$deps/kokkos.tmp"
for p in "${patches[@]}"; do
  echo "[kokkos] applying $(basename "$p")" >&2
  patch -d "$dest" -p1 --forward --quiet <"$p"
done
echo "$want" >"$stamp"
echo "[kokkos] ready: $dest" >&2
