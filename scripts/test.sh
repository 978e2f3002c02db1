#!/usr/bin/env bash
# Set up (packages, Kokkos), build the host backends (Serial + OpenMP) and run the whole test suite with ctest.
#   scripts/test.sh [host|cuda]   (cuda: on a machine with an NVIDIA GPU, also tests the CUDA backend)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$here/scripts/lib/common.sh"
phase "set-up" "$here/scripts/setup_deps.sh"
build="$("$here/scripts/build.sh" "${1:-host}")"
cd "$build"
phase "${1:-host} ctest" ctest --output-on-failure -j "${KBRAIN_TEST_JOBS:-1}"
