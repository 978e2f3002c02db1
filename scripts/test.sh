#!/usr/bin/env bash
# Set up (packages, Kokkos), build the host backends (Serial + OpenMP) and run the whole test suite with ctest.
#   scripts/test.sh [host|cuda]   (cuda: on a machine with an NVIDIA GPU, also tests the CUDA backend)
#   KBRAIN_TEST_JOBS  tests run at once (default: the core count). Tests that time their own output (tests/CMakeLists.txt:
#                     RUN_SERIAL) run alone; OpenMP threads wait passively, so that two tests sharing the cores do
#                     not spin against each other.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$here/scripts/lib/common.sh"
phase "set-up" "$here/scripts/setup_deps.sh"
# The host tree without the benchmarks, which no test runs (the CUDA build compiles them); a GPU machine's with them.
[ "${1:-host}" = cuda ] && bench=1 || bench=0
build="$(KBRAIN_BENCH="${KBRAIN_BENCH:-$bench}" "$here/scripts/build.sh" "${1:-host}")"
cd "$build"
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
phase "${1:-host} ctest" ctest --output-on-failure -j "${KBRAIN_TEST_JOBS:-$(nproc)}"
