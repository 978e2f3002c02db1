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
      libbenchmark1debian
      libopenblas-pthread-dev libopenblas0-pthread libgfortran5 libquadmath0  # host BLAS behind Kokkos Kernels
      libstb-dev libstb0  # image files
      libfftw3-dev libfftw3-single3 libfftw3-double3)  # FFTW3 (the Galbraith decoder's host FFT)
(cd "$dest/debs" && apt-get download "${pkgs[@]}" >&2)
# OpenMPI 4.1 (headers, libraries, mpirun and the runtime libraries it loads) for -DKBRAIN_ENABLE_MPI=ON, kept apart:
# scripts/mpi_sysroot.sh unpacks them with dpkg -x into a relocatable prefix (docs/mpi.md). KBRAIN_BUNDLE_MPI=0 skips.
if [ "${KBRAIN_BUNDLE_MPI:-1}" = 1 ]; then
  mpi_pkgs=(openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libpmix2 libhwloc15 libevent-core-2.1-7
            libevent-pthreads-2.1-7 libevent-2.1-7 libfabric1 libucx0 libibverbs1 librdmacm1 libnl-3-200
            libnl-route-3-200 libpsm-infinipath1 libpsm2-2 libmunge2 libnuma1 libxnvctrl0 libltdl7 libpciaccess0)
  mkdir -p "$dest/debs-mpi"
  (cd "$dest/debs-mpi" && apt-get download "${mpi_pkgs[@]}" >&2)
fi
rm -rf "$dest/kokkos" "$dest/kokkos-kernels"
cp -r "${KBRAIN_DEPS_DIR:-$here/.deps}/kokkos" "$dest/kokkos"
cp -r "${KBRAIN_DEPS_DIR:-$here/.deps}/kokkos-kernels" "$dest/kokkos-kernels"
du -sh "$dest" >&2
