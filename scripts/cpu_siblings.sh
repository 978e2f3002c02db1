#!/usr/bin/env bash
# Which logical CPUs of this machine share a physical core (in a VM, lscpu may report one thread per core while
# the host pairs vCPUs as hyperthreads). The Serial IO step (double, 256^2 mesh: compute-bound, state in cache) runs
# pinned to CPU 0 alone, then beside an identical copy pinned to CPU j, for every j. A copy on an independent core
# leaves CPU 0's time unchanged; one on the same physical core (or a contended one) slows it down.
# KBRAIN_SIBLINGS_PRECISION: float or double (default).
#   scripts/cpu_siblings.sh [BUILD]      (default build/host, else build/cuda)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build/host}"
[ -x "$build/bench/kbrain_bench" ] || build="$here/build/cuda"
bench="$build/bench/kbrain_bench"
[ -x "$bench" ] || { echo "cpu_siblings.sh: no kbrain_bench in $build (build with scripts/build.sh host)" >&2; exit 2; }
filter="^io_step/serial/${KBRAIN_SIBLINGS_PRECISION:-double}/256x256/mesh/"
step_ns() {  # cpu -> ns/cell-step of the Serial step pinned there
  OMP_NUM_THREADS=1 taskset -c "$1" "$bench" --benchmark_min_time=0.5 --benchmark_filter="$filter" 2>/dev/null |
    grep -o 'ns_per_cell_step=[0-9.]*' | cut -d= -f2
}
n=$(nproc)
alone=$(step_ns 0)
[ -n "$alone" ] || { echo "cpu_siblings.sh: $bench printed no ns_per_cell_step for $filter" >&2; exit 1; }
echo "CPU 0 alone: $alone ns/cell-step"
echo "| other copy on CPU | CPU 0 ns/cell-step | slowdown of CPU 0 |"
echo "|---:|---:|---:|"
for ((j = 1; j < n; ++j)); do
  step_ns "$j" > /dev/null &
  other=$!
  with=$(step_ns 0)
  wait "$other"
  awk -v j="$j" -v a="$alone" -v w="$with" 'BEGIN { printf "| %d | %.1f | %.2fx |\n", j, w, w / a }'
done
# Every CPU busy at once: copies on CPUs 1 .. k-1 beside the measured one on CPU 0. With no shared resource this
# equals "CPU 0 alone"; the ratio is what a perfectly parallel k-thread run could reach per thread on this machine.
for k in 8 "$n"; do
  (( k <= n )) || continue
  pids=()
  for ((j = 1; j < k; ++j)); do step_ns "$j" > /dev/null & pids+=($!); done
  with=$(step_ns 0)
  wait "${pids[@]}"
  awk -v k="$k" -v a="$alone" -v w="$with" 'BEGIN { printf "| CPUs 0..%d all busy | %.1f | %.2fx |\n", k - 1, w, w / a }'
done
