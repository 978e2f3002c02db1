#!/usr/bin/env bash
# kbrain's command line refuses bad arguments as it refuses bad files: exit 2, one line on stderr that names the
# option, nothing written (no output folder). Also: a thread count above Kokkos' OpenMP limit in the environment is
# clamped with a note instead of crashing, and no Kokkos binding advice comes before kbrain's own lines. Bad input
# files and networks too large for the memory are refused the same way, before any output folder exists.
# Usage: bad_arguments.sh KBRAIN EXPERIMENT WORKDIR
set -uo pipefail
kb="$1"; exp="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*"; exit 1; }

refused() {  # expected text, then the arguments
  local want="$1"; shift
  "$kb" "$@" > out.txt 2> err.txt
  local rc=$?
  [ "$rc" = 2 ] || fail "kbrain $* exited $rc, not 2: $(cat err.txt)"
  [ "$(wc -l < err.txt)" = 1 ] || fail "kbrain $*: not one line on stderr: $(cat err.txt)"
  grep -q -- "$want" err.txt || fail "kbrain $*: message lacks '$want': $(cat err.txt)"
  [ ! -e out ] || fail "kbrain $* left an output folder"
}

refused "--steps" run "$exp" --steps 0 -o out
refused "--steps" run "$exp" --steps 99999999999999999999 -o out
refused "--steps" run "$exp" --steps abc -o out
refused "--size" run "$exp" --size 0 -o out
refused "--density" run "$exp" --density nan -o out
refused "--density" run "$exp" --density -1 -o out
refused "--backend" run "$exp" -b '' -o out
refused "--out" run "$exp" -o ''
refused "--precision" run "$exp" -p half -o out
refused "--device-budget" run "$exp" --device-budget inf -o out
refused "--threads" --threads 0 run "$exp" -o out
refused "--threads" --threads 100000 run "$exp" -o out
refused "--steps" compare "$exp" --steps -5 -o out
refused "--sizes" compare "$exp" --sizes 0 -o out
refused "--sizes" compare "$exp" --sizes 8,8 -o out
refused "--backends" compare "$exp" --backends serial,serial -o out
refused "--threads" compare "$exp" --threads 0 -o out
refused "--ranks" compare "$exp" --ranks 0 -o out
refused "--reference-dt" accuracy "$exp" --reference-dt -1 -o out
# A word that is no command is named as such (not "a subcommand is required").
refused "unknown command 'frobnicate'" frobnicate
refused "unknown command 'runn'" --threads 1 runn "$exp"
# kbrain accuracy checks its methods, backend and output file before its first line and before the reference run.
wang="$(dirname "$exp")/wang2012.toml"
refused '--methods: "xx"' accuracy "$wang" --methods fe+eai,xx
refused "backend 'nosuch'" accuracy "$wang" -b nosuch --methods fe
touch afile
refused "--out" accuracy "$wang" --methods fe -o afile/table.md
# An output folder that cannot be made is bad input too: exit 2, not 1.
refused "output folder (--out)" run "$exp" -o afile/out
refused "output folder (--out)" run "$exp" -o /proc/kbrain-no-such-folder/out
refused "output folder (--out)" compare "$exp" -o afile/out
refused "--reference-dt" accuracy "$exp" --reference-dt 0 -o out
refused "--window" accuracy "$exp" --window nan -o out
refused "required" run
# A spiking network too large for the host's memory is refused before anything is allocated.
refused "neurons need" run "$(dirname "$exp")/cobahh_1m.toml" --size 2000000000 -b serial -o out
refused "not expected" run "$exp" --no-such-option -o out

# Stimulus files are read and checked while planning: a bad one is refused with its file and line before any output
# exists (no working folder either).
no_output() {  # neither the folder nor a working folder beside it
  ls -d out out.partial-* > /dev/null 2>&1 && fail "kbrain $* left $(ls -d out out.partial-* 2> /dev/null)"
  return 0
}
stimulus_case() {  # name, stimulus table lines; writes NAME.toml: a 4-cell all-to-all network, 20 steps
  cat > "$1.toml" <<TOML
name = "$1"
[model]
kind = "io"
[simulation]
steps = 20
[network]
type = "all_to_all"
cells = 4
[stimulus]
$2
[record]
variables = ["v_axon"]
cells = [0]
TOML
}
printf '0.5\n1.0\nabc\n' > schedule_bad.txt
stimulus_case schedule_bad 'kind = "schedule"
file = "schedule_bad.txt"'
refused "schedule_bad.txt:3: \"abc\" is not a finite number" run schedule_bad.toml -b serial -o out
no_output run schedule_bad.toml
printf '1 2 3\n1 2 3 4\n' > cells_bad.txt
stimulus_case cells_bad 'kind = "cell_file"
file = "cells_bad.txt"'
refused "cells_bad.txt:1: line 1 has 3 values, expected 4" run cells_bad.toml -b serial -o out
no_output run cells_bad.toml
printf '1 2 3 4\n1 2 3 4\n' > cells_short.txt
stimulus_case cells_short 'kind = "cell_file"
file = "cells_short.txt"'
refused "cells_short.txt:3: file ends after 2 lines, but the run has 20 steps" run cells_short.toml -b serial -o out
no_output run cells_short.toml

# Plans refuse host arrays that would not fit before building them. Under an address-space limit of 4 GB (which
# kbrain counts as what is available), so that the estimates exceed the memory on any machine; without the checks
# each of these allocated gigabytes and ended in std::bad_alloc. ASan reserves terabytes of address space at start,
# so a sanitizer build skips them.
limited_refusal() {  # expected text, then the experiment and its options: kbrain run ... -b serial under ulimit
  local want="$1"; shift
  (ulimit -v 4000000; "$kb" run "$@" -b serial -o out > out.txt 2> err.txt; echo $? > rc.txt)
  [ "$(cat rc.txt)" = 2 ] || fail "kbrain run $* exited $(cat rc.txt), not 2: $(cat err.txt)"
  [ "$(wc -l < err.txt)" = 1 ] || fail "kbrain run $*: not one line on stderr: $(cat err.txt)"
  grep -q -- "$want" err.txt || fail "kbrain run $*: message lacks '$want': $(cat err.txt)"
  no_output run "$@"
}
# The CUDA runtime, where a GPU is present, also reserves more address space than the limit: kbrain cannot start
# under it at all, so these cases run only where `kbrain backends` starts under the limit.
if ! ldd "$kb" 2> /dev/null | grep -q 'libasan' && (ulimit -v 4000000; "$kb" backends > /dev/null 2>&1); then
  # an edge list whose header alone asks for 2^31 - 1 cells: refused from the header, before the CSR exists
  printf '# header only\ncells 2147483647\n' > huge.edges
  printf 'name = "huge_edges"\n[model]\nkind = "io"\n[simulation]\nsteps = 10\n[network]\ntype = "edge_list"\nfile = "huge.edges"\n' > huge_edges.toml
  limited_refusal "huge.edges: cells 2147483647: the network (its CSR offsets and g_CaL and, on this CPU backend, the cells' state) needs .* of host memory but .* are available; at most [0-9]* cells fit" huge_edges.toml
  # a 6400 x 6400 mesh: its CSR and g_CaL (2 GB) fit, its state on the serial backend (5 GB more) does not; the plan
  # counts both before building the network (as a 20000 x 20000 mesh's 19 GB of CSR were built before the refusal)
  limited_refusal "the 6400 x 6400 mesh, its g_CaL and, on this CPU backend, the cells' state needs .* of host memory but .* are available; a mesh of [0-9]* x [0-9]* cells fits" "$(dirname "$exp")/io_mesh_sweep.toml" --size 6400
  printf 'name = "lif_big"\n[model]\nkind = "galbraith_lif"\n[simulation]\nsteps = 10\n[network]\ntopology = "random"\nneurons = 50000\nsynapses = 2000000000\n' > lif_big.toml
  limited_refusal "the host network of 50000 neurons and 2000000000 synapses and, on this CPU backend, the run.s state (float, at least) needs .* of host memory.*; at most [0-9]* synapses among 50000 neurons fit (network.synapses)" lif_big.toml
  printf 'name = "som_big"\n[model]\nkind = "galbraith_som"\n[simulation]\nsteps = 10\n[som]\nwidth = 8\nheight = 8\n[input]\nwidth = 40000\nheight = 40000\n' > som_big.toml
  limited_refusal "the generated 40000 x 40000 picture and, on this CPU backend, the 8 x 8 SOM (float, at least) needs .* of host memory" som_big.toml
  # a picture file whose header claims 40000 x 40000 pixels (and holds none): its decoding is refused from the header
  printf 'BM\0\0\0\0\0\0\0\0\66\0\0\0\50\0\0\0\100\234\0\0\100\234\0\0\1\0\30\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' > huge.bmp
  printf 'name = "som_file_big"\n[model]\nkind = "galbraith_som"\n[simulation]\nsteps = 10\n[som]\nwidth = 8\nheight = 8\n[input]\nimage = "huge.bmp"\n' > som_file_big.toml
  limited_refusal "input.image: .*huge.bmp: the 40000 x 40000 picture, decoded (3 channels a pixel) and, on this CPU backend, the 8 x 8 SOM (float, at least) needs .* of host memory but .* are available" som_file_big.toml
  # the product's A, B and C (21 GB): refused with the largest size that fits
  printf 'name = "gemm_big"\n[model]\nkind = "galbraith_gemm"\n[simulation]\nsteps = 1\nprecision = "double"\n[gemm]\nm = 30000\nn = 30000\nk = 30000\n' > gemm_big.toml
  limited_refusal "product's A, B and C needs .* of host memory but .* are available; a product of size at most [0-9]* fits (gemm.m = gemm.n = gemm.k = [0-9]*)" gemm_big.toml
  # compare: a size that does not fit is a row that says so, and the sizes that fit run (exit 0). 3500 x 3500: its
  # network fits (0.6 GB), the serial reference run's state (3 GB more) does not, so no row of that size runs;
  # 20000 x 20000: its network does not fit (19 GB).
  (ulimit -v 4000000; "$kb" compare "$(dirname "$exp")/io_mesh_sweep.toml" --sizes 8,3500,20000 --backends serial \
     --precisions double,float --steps 10 -o cmp --no-plots > cmp.log 2>&1; echo $? > rc.txt)
  [ "$(cat rc.txt)" = 0 ] || fail "compare with sizes that do not fit exited $(cat rc.txt): $(tail -3 cmp.log)"
  grep -q '^8x8,serial,double,10,' cmp/compare.csv || fail "compare: no row of the 8 x 8 mesh: $(cat cmp/compare.csv)"
  grep -q '^8x8,serial,float,10,' cmp/compare.csv || fail "compare: no float row of the 8 x 8 mesh: $(cat cmp/compare.csv)"
  grep -q '^3500x3500,serial,double,.*not run: .*not enough memory on serial.*; a mesh of [0-9]* x [0-9]* cells fits' \
    cmp/compare.csv || fail "compare: no refusal row for 3500 in double: $(cat cmp/compare.csv)"
  grep -q '^3500x3500,serial,float,.*not run: the reference run (serial double) does not fit' cmp/compare.csv ||
    fail "compare: no refusal row for 3500 in float: $(cat cmp/compare.csv)"
  grep -q '^20000,serial,double,.*not run: .*the 20000 x 20000 mesh.* needs .* of host memory but .* are available' \
    cmp/compare.csv || fail "compare: no refusal row for 20000: $(cat cmp/compare.csv)"
  # compare: a sweep none of whose sizes fits has no result: exit 2, naming the first refusal, no finished folder
  (ulimit -v 4000000; "$kb" compare "$(dirname "$exp")/io_mesh_sweep.toml" --sizes 20000 --backends serial \
     --precisions double --steps 10 -o none_fit --no-plots > none.log 2>&1; echo $? > rc.txt)
  [ "$(cat rc.txt)" = 2 ] || fail "compare with no size that fits exited $(cat rc.txt), not 2: $(tail -3 none.log)"
  grep -q "no point of the comparison fits this machine; the first: 20000 serial double: .*20000 x 20000 mesh" none.log ||
    fail "compare with no size that fits: message: $(tail -3 none.log)"
  [ ! -e none_fit ] || fail "compare with no size that fits left none_fit/ as if finished"
  # compare --threads: its per-count comparisons record the size that does not fit, and the table lists it as not run
  if "$kb" backends | grep -q "^  openmp"; then
    (ulimit -v 4000000; "$kb" compare "$(dirname "$exp")/io_mesh_sweep.toml" --threads 1 --sizes 8,20000 \
       --precisions double --steps 10 -o thr --no-plots > thr.log 2>&1; echo $? > rc.txt)
    [ "$(cat rc.txt)" = 0 ] || fail "compare --threads with a size that does not fit exited $(cat rc.txt): $(tail -3 thr.log)"
    grep -q '^"8x8",double,1,' thr/thread_scaling.csv || fail "compare --threads: no 8 x 8 row: $(cat thr/thread_scaling.csv)"
    grep -q '20000 double with 1 threads: not run: .*the 20000 x 20000 mesh' thr/thread_scaling.md ||
      fail "compare --threads: 20000 not listed as not run: $(cat thr/thread_scaling.md)"
  fi
  printf '0 1\n' > pairs.txt
  printf 'name = "adex_big"\n[model]\nkind = "adex_costa"\n[simulation]\nsteps = 10\n[network]\narchitecture = "mxm"\nneurons = 100000\nconnectivity = "file"\nfile = "pairs.txt"\n' > adex_big.toml
  limited_refusal "network.file: the 100000 x 100000 connection flags and, on this CPU backend, the synapses (float, at least) needs .* of host memory" adex_big.toml
  # the run's own statement (models/runtime/memory_statement.hpp) refuses before the output folder exists
  printf 'name = "decoder_big"\n[model]\nkind = "galbraith_decoder"\n[simulation]\nsteps = 1\ndt = 0.25\n[population]\nneurons = 10000\n[stimulus]\ntrain_s = 100\n' > decoder_big.toml
  limited_refusal "10000 neurons decoded over 400000 training samples.* need about .* on serial" decoder_big.toml
fi

# OMP_NUM_THREADS beyond the limit: clamped, with one note, and the command works.
OMP_NUM_THREADS=100000 "$kb" backends > out.txt 2> err.txt || fail "OMP_NUM_THREADS=100000 kbrain backends: $(cat err.txt)"
grep -q "OMP_NUM_THREADS asks for 100000 threads; using 512" err.txt || fail "no clamp note: $(cat err.txt)"
grep -q "^  serial" out.txt || fail "backends printed nothing"

# Without OMP_PROC_BIND the first line on stderr is kbrain's own message, not Kokkos' binding advice.
env -u OMP_PROC_BIND -u OMP_PLACES "$kb" run does-not-exist.toml -o out > out.txt 2> err.txt
[ $? = 2 ] || fail "a missing experiment file did not exit 2"
grep -q "OMP_PROC_BIND" out.txt err.txt && fail "Kokkos' binding advice was printed: $(cat out.txt err.txt)"
head -1 err.txt | grep -q "^kbrain: error: " || fail "first line: $(head -1 err.txt)"
echo "bad_arguments: all passed"
