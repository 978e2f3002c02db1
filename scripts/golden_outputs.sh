#!/usr/bin/env bash
# Golden outputs of a build: SHA-256 of the trace/spike files that `kbrain run` writes for every experiment of the
# catalogue (experiments/*.toml), on Serial and OpenMP, in double and float, with short runs; and of the IO runs under
# mpiexec with 1-4 ranks (MPI builds). A refactoring that must not change results compares the files of two trees:
#   scripts/golden_outputs.sh BUILD_DIR OUT_FILE        e.g. scripts/golden_outputs.sh build/host /tmp/golden.txt
#   diff /tmp/golden_before.txt /tmp/golden_after.txt   (no output: every file is bit-identical)
# Large networks run at a reduced size (IO: --size; spiking: a reduced copy of the file) so the whole pass stays
# within minutes on two cores; the sizes are printed in OUT_FILE.
#   KBRAIN_GOLDEN_STEPS    steps per run (default 300)
#   KBRAIN_GOLDEN_BACKENDS backends (default "serial openmp")
#   KBRAIN_GOLDEN_ONLY     a regular expression: only the experiments whose name matches, and no MPI runs
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: golden_outputs.sh BUILD_DIR OUT_FILE}" && pwd)"
out_file="${2:?usage: golden_outputs.sh BUILD_DIR OUT_FILE}"
kbrain="$build/experiments/kbrain"
[ -x "$kbrain" ] || kbrain="$build/experiments/program/kbrain"
[ -x "$kbrain" ] || { echo "golden_outputs: no kbrain under $build" >&2; exit 2; }
steps="${KBRAIN_GOLDEN_STEPS:-300}"
backends="${KBRAIN_GOLDEN_BACKENDS:-serial openmp}"
work="$(mktemp -d)"
trap 'rm -rf "$work" "$here"/experiments/golden_reduced_*.toml' EXIT
export KBRAIN_NO_PROGRESS=1 OMP_NUM_THREADS=2 OMP_PROC_BIND=false

# IO sizes (--size): only where the file's network is too large for this pass. A resized IO run writes no trace
# (record.cells refer to the file's size), only spikes.
io_size() {
  case "$(basename "$1" .toml)" in
    io_mpi_gaussian_4m) echo 32768 ;;
    *) echo 0 ;;
  esac
}

: >"$out_file"
hash_dir() {  # label dir
  for f in trace.csv trace.kbt spikes.csv spikes.kbs; do
    [ -f "$2/$f" ] && echo "$1 $f $(sha256sum "$2/$f" | cut -d' ' -f1)" >>"$out_file"
  done
  return 0
}

for exp in "$here"/experiments/*.toml; do
  name="$(basename "$exp" .toml)"
  if [ -n "${KBRAIN_GOLDEN_ONLY:-}" ] && ! [[ "$name" =~ $KBRAIN_GOLDEN_ONLY ]]; then continue; fi
  file="$exp"
  extra=()
  if grep -q '^kind = "io"' "$exp"; then
    size="$(io_size "$exp")"
    [ "$size" = 0 ] || extra=(--size "$size")
  else
    neurons="$(sed -n 's/^neurons *= *\([0-9]*\).*/\1/p' "$exp" | head -1)"
    if grep -q '^\[\[population\]\]' "$exp"; then
      # a network of populations: at scale 0.05, no warm-up
      file="$here/experiments/golden_reduced_$name.toml"
      perl -pe 's/^scale(\s*=\s*)[0-9.]+/scale${1}0.05/; s/^warmup_steps(\s*=\s*)\d+/warmup_steps${1}0/' "$exp" >"$file"
    elif [ -n "$neurons" ] && [ "$neurons" -gt 20000 ]; then
      file="$here/experiments/golden_reduced_$name.toml"
      # neuron counts and index ranges scaled to 8000 neurons
      perl -pe "s/^(neurons|excitatory|first|last)(\s*=\s*)(\d+)/\$1.\$2.int(\$3*8000\/$neurons+0.5)/e" "$exp" >"$file"
    fi
  fi
  for b in $backends; do
    for p in double float; do
      dir="$work/$name-$b-$p"
      if "$kbrain" run "$file" -b "$b" -p "$p" --steps "$steps" "${extra[@]}" -o "$dir" >"$dir.log" 2>&1; then
        hash_dir "$name $b $p ${extra[*]:-}" "$dir"
      else
        echo "$name $b $p FAILED (see log below)" >>"$out_file"; sed 's/^/    /' "$dir.log" | tail -3 >>"$out_file"
      fi
    done
  done
done

# Multi-rank IO runs (MPI builds): rank 0 writes the same files as a single process.
if [ -z "${KBRAIN_GOLDEN_ONLY:-}" ] && [ -x "$(command -v mpiexec || true)" ] && grep -q 'KBRAIN_ENABLE_MPI:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1
  for name in io_mesh_sweep io_vdvlag_uniform io_vdvlag_gaussian; do
    for ranks in 1 2 3 4; do
      for p in double float; do
        dir="$work/mpi-$name-$ranks-$p"
        if mpiexec --oversubscribe -n "$ranks" "$kbrain" run "$here/experiments/$name.toml" -b serial -p "$p" \
             --steps "$steps" -o "$dir" >"$dir.log" 2>&1; then
          hash_dir "mpi $name ranks=$ranks $p" "$dir"
        else
          echo "mpi $name ranks=$ranks $p FAILED" >>"$out_file"; tail -3 "$dir.log" | sed 's/^/    /' >>"$out_file"
        fi
      done
    done
  done
fi
echo "golden_outputs: $(grep -c ' [0-9a-f]\{64\}$' "$out_file") files hashed, $(grep -c FAILED "$out_file" || true) runs failed -> $out_file" >&2
