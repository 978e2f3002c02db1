#!/usr/bin/env bash
# Galbraith 2010's applications (galbraith_gemm: CUSUMMA; galbraith_som: the self-organising map) on a GPU machine;
# each stage is one command of a few minutes at most.
# Usage: scripts/galbraith_apps_gpu.sh STAGE OUT [build folder, default build/cuda]   (after scripts/build.sh cuda or
# scripts/offline_build.sh cuda)
#   tests     ctest: every galbraith entry (Serial, OpenMP, CUDA)
#   gemm      20 000² float at the study's budgets (512 and 896 MiB), at 4 GiB and in core (free memory), double and
#             single buffering; the Γ product (N = 1000, T = 400 000) at 896 MiB
#   gemm_cpu  kbrain compare of square products 1000-4000 and of Γ over the decoder's N on Serial, OpenMP and CUDA
#             (Serial: OpenBLAS on one thread, the study's single-threaded ATLAS counterpart; OPENBLAS_CORETYPE, where
#             the machine sets it, chooses the host kernel: each host row's note names the one that ran)
#   gemm_gpu  kbrain compare of square products 12 000-20 000 and of the k sweep, CUDA only
#   som       one full pass of the generated 2400 x 1800 image on a 512² grid (both neighbourhoods), CUDA, float
#   som_sizes kbrain compare of the SOM over grid sizes 64² ... 4096² on Serial, OpenMP and CUDA, 2000 steps each
#             (fewer on the host where the budget cuts them)
#   decoder   kbrain compare of the whole decoding pipeline, N = 10 ... 1000, SU and MU, CUDA
# Each run's run.json goes to OUT/<stage>/<case>/; one summary line per run on stdout.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stage="${1:?stage: tests | gemm | gemm_cpu | gemm_gpu | som | som_sizes | decoder}"
out="${2:?output folder}"
build="${3:-$here/build/cuda}"
kb="$build/experiments/program/kbrain"
export OMP_PROC_BIND=spread OMP_PLACES=threads KBRAIN_NO_PROGRESS=1
mkdir -p "$out/$stage"
[ -z "${OPENBLAS_CORETYPE:-}" ] || echo "note: OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE chooses the host BLAS kernel of the Serial/OpenMP rows" >&2
ex="$here/experiments"

summary() {  # run folder -> one line
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/run.json"))
keys = ["t_m", "t_k", "transfers", "bytes_moved", "gflops", "link_s", "in_core_gemm_s", "in_core_gflops", "bound_ratio",
        "us_per_step"]
extra = ", ".join(f"{k} {r[k]:.4g}" for k in keys if k in r)
print(f'{r["backend"]:6} {r["precision"]:6} {r["steps"]} steps: simulate {r["simulate_s"]:.4g} s '
      f'({r["simulate_s"] / r["steps"] * 1e6:.4g} us/step), setup {r["setup_s"]:.3g} s; {extra}')
PY
}

run() {  # case name, kbrain run args...
  local name="$1"; shift
  local dir="$out/$stage/$name"
  if "$kb" run "$@" -o "$dir" --no-plots >"$dir.log" 2>&1; then echo "$name: $(summary "$dir")"; else echo "$name FAILED: $(tail -3 "$dir.log")"; fi
}

compare() {  # case name, kbrain compare args...
  local name="$1"; shift
  if "$kb" compare "$@" -o "$out/$stage/$name" --no-plots >"$out/$stage/$name.log" 2>&1; then
    echo "$name: $out/$stage/$name/compare.md"
  else
    echo "$name FAILED: $(tail -3 "$out/$stage/$name.log")"
  fi
}

case "$stage" in
  tests) (cd "$build" && ctest -R 'galbraith|adex' --output-on-failure -j 4 2>&1 | grep -E "Test +#|tests passed|FAILED|Failed") ;;
  gemm)
    sq="$ex/galbraith_gemm_square.toml"
    for buf in double single; do
      run "sq20000_896MiB_$buf" "$sq" -b cuda -p float --size 20000 --variant "$buf"
      run "sq20000_512MiB_$buf" "$sq" -b cuda -p float --size 20000 --variant "$buf" --device-budget 536870912
    done
    run "sq20000_4GiB_double" "$sq" -b cuda -p float --size 20000 --variant double --device-budget 4294967296
    run "sq20000_in_core" "$sq" -b cuda -p float --size 20000 --variant single --device-budget 0
    run "sq20000_in_core_double_precision" "$sq" -b cuda -p double --size 20000 --variant single --device-budget 0
    run "gram1000_T400000_896MiB" "$ex/galbraith_gemm_gram.toml" -b cuda -p float --size 1000 --variant double
    ;;
  gemm_cpu)
    compare square_cpu "$ex/galbraith_gemm_square.toml" --backends serial,openmp,cuda --sizes 1000,2000,4000 --variants double
    compare gram_cpu "$ex/galbraith_gemm_gram.toml" --backends serial,openmp,cuda --variants double
    ;;
  gemm_gpu)
    compare square_gpu "$ex/galbraith_gemm_square.toml" --backends cuda --sizes 12000,16000,20000
    compare inner_gpu "$ex/galbraith_gemm_inner.toml" --backends cuda
    ;;
  som)
    for nb in window disc; do run "som512_full_pass_$nb" "$ex/galbraith_som.toml" -b cuda -p float --variant "$nb"; done
    ;;
  som_sizes)
    # the budget bounds Serial's largest rows on slow hosts (fewer steps, footnoted in the table); on the GPU host of
    # docs/models/galbraith-som.md's table it cut none
    compare som_sizes "$ex/galbraith_som.toml" --backends serial,openmp,cuda --steps 2000 --variants window \
      --sizes 64,128,256,512,1024,2048,4096 --max-slow-cell-steps 4000000000
    ;;
  decoder)
    compare decoder_gpu "$ex/galbraith_decoder.toml" --backends cuda
    ;;
  *) echo "unknown stage $stage" >&2; exit 2 ;;
esac
