#!/usr/bin/env bash
# A/B of the host IO mesh step (Serial SIMD chunk kernel and the scalar baseline, float and double) between source
# trees and compiler flags on one machine: bench/lab/io_host_step_ab.cpp compiled once per variant against a host Kokkos
# (Serial + OpenMP, built from the bundled source once), then run in interleaved rounds so that every variant sees
# the same moments of a shared host. Each run prints the minimum and median of its runs.
#   scripts/lab/ab_io_host_step.sh OUT LABEL=TREE[@FLAGS] ...      e.g. base=/tmp/base new=. new256=.@-mprefer-vector-width=256
# The flags are kbrain_models' with KBRAIN_NATIVE_ARCH (models/CMakeLists.txt); FLAGS come after them.
# Environment: KBRAIN_AB_ROUNDS (5), KBRAIN_AB_THREADS ("1": OpenMP thread counts, each pinned with OMP_PROC_BIND=close
# and OMP_PLACES=cores, or KBRAIN_AB_PLACES), KBRAIN_AB_SIDES ("256"), KBRAIN_AB_KERNELS ("both"; "simd": without the scalar baseline;
# "ceiling": each thread's FMA and simd_exp rate in registers, see bench/lab/io_host_step_ab.cpp),
# KBRAIN_AB_KOKKOS_HOST (install prefix, /tmp/kbrain-ab-kokkos-host).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:?usage: scripts/lab/ab_io_host_step.sh OUT LABEL=TREE[@FLAGS] ...}"
shift
[ $# -ge 1 ] || { echo "usage: scripts/lab/ab_io_host_step.sh OUT LABEL=TREE[@FLAGS] ..." >&2; exit 2; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"
kk="${KBRAIN_AB_KOKKOS_HOST:-/tmp/kbrain-ab-kokkos-host}"
if [ ! -f "$kk/lib/libkokkoscore.a" ] && [ ! -f "$kk/lib64/libkokkoscore.a" ]; then
  src="$here/.offline/kokkos"
  [ -d "$src" ] || src="$here/.deps/kokkos"
  cmake -S "$src" -B "$kk-build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ -DCMAKE_CXX_STANDARD=17 \
    -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON -DCMAKE_INSTALL_PREFIX="$kk" > "$out/kokkos.log" 2>&1
  cmake --build "$kk-build" -j "$(nproc)" >> "$out/kokkos.log" 2>&1
  cmake --install "$kk-build" >> "$out/kokkos.log" 2>&1
fi
libdir="$kk/lib"
[ -f "$libdir/libkokkoscore.a" ] || libdir="$kk/lib64"
base_flags="-O3 -DNDEBUG -std=c++17 -fopenmp -fopenmp-simd -fno-trapping-math -ffp-contract=off -march=native"
base_flags+=" -mprefer-vector-width=512"
labels=()
for spec in "$@"; do
  label="${spec%%=*}"
  rest="${spec#*=}"
  tree="${rest%%@*}"
  flags=""
  [ "$rest" != "$tree" ] && flags="${rest#*@}"
  tree="$(cd "$tree" && pwd)"
  labels+=("$label")
  # shellcheck disable=SC2086
  g++ $base_flags $flags -I"$tree" -isystem "$kk/include" "$here/bench/lab/io_host_step_ab.cpp" -o "$out/ab_$label" \
    -L"$libdir" -lkokkoscontainers -lkokkoscore -ldl > "$out/build_$label.log" 2>&1 &
  echo "$label: tree $tree, flags $base_flags $flags" | tee -a "$out/variants.txt"
done
wait
for label in "${labels[@]}"; do [ -x "$out/ab_$label" ] || { cat "$out/build_$label.log" >&2; exit 1; }; done
export OMP_PROC_BIND=close OMP_PLACES="${KBRAIN_AB_PLACES:-cores}"
for side in ${KBRAIN_AB_SIDES:-256}; do
  for round in $(seq "${KBRAIN_AB_ROUNDS:-5}"); do
    for threads in ${KBRAIN_AB_THREADS:-1}; do
      for label in "${labels[@]}"; do
        OMP_NUM_THREADS="$threads" "$out/ab_$label" "$label" "$side" 5 10 "${KBRAIN_AB_KERNELS:-both}" 2>/dev/null | sed "s/^/round $round /"
      done
    done
  done
done | tee "$out/rounds.txt"
