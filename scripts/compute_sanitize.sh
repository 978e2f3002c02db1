#!/usr/bin/env bash
# compute-sanitizer over a short CUDA run of every model (issue 27): memcheck, racecheck, synccheck and initcheck,
# one `kbrain run` per (model run, tool). Usage on a GPU machine, after scripts/offline_build.sh cuda:
#   scripts/compute_sanitize.sh [build folder, default build/cuda] [output folder, default out/compute_sanitize]
#   KBRAIN_SANITIZE_TOOLS  the tools (default "memcheck racecheck synccheck initcheck")
#   KBRAIN_SANITIZE_ONLY   a regular expression over the run names below (default: every run)
# Writes <run>_<tool>.txt (the sanitizer's log) and summary.md (one row per run and tool: errors, or the exit code).
# The runs are small on purpose: the sanitizers slow kernels down by 10-100x, and a hazard shows at any size.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build/cuda}"
out="${2:-$here/out/compute_sanitize}"
kb="$build/experiments/program/kbrain"
cs="${KBRAIN_COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}"
tools="${KBRAIN_SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}"
only="${KBRAIN_SANITIZE_ONLY:-.}"
mkdir -p "$out"
export KBRAIN_NO_PROGRESS=1 OMP_PROC_BIND=false
e="$here/experiments"
# name | experiment | arguments (every model kind, and each of its network kinds or kernels that differ)
runs=(
  "io_mesh|$e/io_du_nguyen_mesh.toml|--size 64 --steps 200"
  "io_uniform|$e/io_vdvlag_uniform.toml|--size 4096 --density 10 --steps 100"
  "io_gaussian|$e/io_vdvlag_gaussian.toml|--size 4096 --density 100 --steps 100"
  "lif_coba|$e/coba.toml|--steps 300"
  "lif_cuba|$e/cuba.toml|--steps 300"
  "hh_cobahh|$e/cobahh.toml|--steps 300"
  "izhikevich|$e/izhikevich2003.toml|--steps 300"
  "cortex_hh|$e/wang2012.toml|--size 4000 --steps 500"
  "cortex_hh_all|$e/wang2012_t2_all.toml|--size 4000 --steps 500"
  "adex_mxm|$e/neofytou_t6_1_mxm.toml|--size 200 --steps 50"
  "adex_nxm|$e/neofytou_t6_2_nxm.toml|--size 200 --steps 50"
  "galbraith_lif_ring|$e/galbraith_gb1_ring.toml|--steps 500"
  "galbraith_lif_random|$e/galbraith_gb3_random.toml|--steps 300"
  "galbraith_som|$e/galbraith_som_small.toml|--steps 2000"
  "galbraith_gemm|$e/galbraith_gemm_small.toml|"
  "galbraith_decoder|$e/galbraith_decoder_small.toml|"
)
# One process per tool at a time, the tools side by side: the GPU has room for four small runs, and the
# sanitizers' host-side work is what takes the time.
kokkos_reduce_only() {  # $1: a racecheck log; true when it reports races and every one is in a Kokkos ParallelReduce
  local reported
  reported=$(grep -c "Race reported between" "$1")
  [ "$reported" -gt 0 ] && [ "$(grep "Race reported between" "$1" | grep -c "Kokkos::Impl::ParallelReduce<")" -eq "$reported" ]
}
sanitize_with() {  # $1: tool; writes $out/rows_<tool>.txt
  local tool="$1" entry name experiment args log code summary result
  : > "$out/rows_$tool.txt"
  for entry in "${runs[@]}"; do
    IFS='|' read -r name experiment args <<< "$entry"
    [[ "$name" =~ $only ]] || continue
    log="$out/${name}_${tool}.txt"
    # shellcheck disable=SC2086
    "$cs" --tool "$tool" --error-exitcode 9 --print-limit 20 "$kb" run "$experiment" -b cuda $args \
      -o "$out/runs/${name}_${tool}" --no-plots > "$log" 2>&1
    code=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1 | sed 's/^========= //')
    [ -n "$summary" ] || summary="no summary line"
    if [ "$code" -eq 0 ]; then
      result="clean: $summary"
    elif [ "$tool" = racecheck ] && [[ "$summary" == *"(0 errors,"* ]] && kokkos_reduce_only "$log"; then
      # racecheck's warnings (not errors) inside Kokkos' own reduction: its shared-memory tree, not kbrain's code
      result="clean of errors: $summary, every one inside Kokkos' parallel_reduce"
    else
      result="**exit $code**: $summary"
    fi
    echo "| $name | $tool | $result |" >> "$out/rows_$tool.txt"
  done
}
for tool in $tools; do sanitize_with "$tool" & done
wait
{
  echo "| run | tool | result |"
  echo "|---|---|---|"
  for tool in $tools; do cat "$out/rows_$tool.txt"; rm -f "$out/rows_$tool.txt"; done
} > "$out/summary.md"
cat "$out/summary.md"
rm -rf "$out/runs"
! grep -q '\*\*exit' "$out/summary.md"
