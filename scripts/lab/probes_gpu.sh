#!/usr/bin/env bash
# Lab probes (bench/README.md) on a GPU machine in one go: the AdEx pass's column groups (adex_pass_probe N P
# groups: 8- and 16-byte accesses, with and without the connection byte, with and without launch bounds), the AdEx
# step end in one launch against the two before it (adex_step_end_probe), its synapse layouts
# (adex_layout_probe: arrays, interleaved, (R, u)(U, A) pairs; all firing and post only), the COBAHH neuron update
# with its options read or fixed and in parts (hh_parts_probe) and the AdEx pass at row lengths around 10 000
# (adex_pass_probe). The parts and the row lengths answered their questions on 2026-11-28 (parts: not adopted;
# 10 000: warps spanning two row blocks, fixed) and are re-run after changes to either kernel. The SOM and GEMM probes are built on demand alone. Configures the CUDA tree offline (as
# scripts/offline_build.sh) and builds the probes only.
# Usage: scripts/lab/probes_gpu.sh OUT   (needs .offline/, scripts/offline_bundle.sh). A log per probe in OUT.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:?output folder}"
mkdir -p "$out"
root=/tmp/kbrain-sysroot
mkdir -p "$root"
[ -d "$root/usr/include/toml++" ] || for d in "$here"/.offline/debs/*.deb; do dpkg -x "$d" "$root"; done
export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}" PATH="/usr/local/cuda/bin:$PATH"
t0=$(date +%s)
# configure as scripts/offline_build.sh does, then build the probes alone (not the whole tree)
cmake -S "$here" -B "$here/build/cuda" -DCMAKE_BUILD_TYPE=Release -DKBRAIN_ENABLE_CUDA=ON -DKBRAIN_BUILD_BENCH=ON \
  -DKBRAIN_NATIVE_ARCH=ON -DKBRAIN_ENABLE_MPI=OFF -DCMAKE_PREFIX_PATH="$root/usr" \
  -DKBRAIN_KOKKOS_SOURCE="$here/.offline/kokkos" -DKBRAIN_KOKKOS_KERNELS_SOURCE="$here/.offline/kokkos-kernels" \
  -DKBRAIN_USE_BUNDLED_KOKKOS=ON >"$out/configure.log" 2>&1 || { echo "configure failed: $out/configure.log"; exit 1; }
cmake --build "$here/build/cuda" -j "${KBRAIN_JOBS:-16}" --target adex_layout_probe hh_parts_probe adex_pass_probe adex_step_end_probe \
  >"$out/build_probes.log" 2>&1 || { echo "probe build failed: $out/build_probes.log"; exit 1; }
echo "built after $(( $(date +%s) - t0 )) s"
b="$here/build/cuda/bench"
# The column groups first (bench/README.md; adopted with launch bounds on 2026-11-29): 8- and 16-byte accesses, with and
# without the flag, the product's launch.
timeout 150 stdbuf -oL "$b/adex_pass_probe" 10000 both groups >"$out/adex_groups.log" 2>&1; echo "adex groups: exit $?"
# The step end in one launch against the two launches before it, with the sums' bits (bench/README.md).
timeout 120 stdbuf -oL "$b/adex_step_end_probe" 1000 5000 10000 20000 >"$out/adex_step_end.log" 2>&1; echo "adex step end: exit $?"
# 10 000 only: at 20 000 the probe's host-side fills and bit checks take minutes. Line-buffered, so that a timeout
# keeps what was printed.
timeout 200 stdbuf -oL "$b/adex_layout_probe" 10000 >"$out/adex_layout.log" 2>&1; echo "adex layouts: exit $?"
timeout 300 stdbuf -oL "$b/hh_parts_probe" 4000 64000 1000000 >"$out/hh_parts.log" 2>&1; echo "hh parts: exit $?"
# 10 000 columns are 16 past a multiple of a warp, 9984 and 10 016 are whole warps, 10 240 whole warps and lines: the
# product's pass must take the same time per byte at all four.
for n in 9984 10000 10016 10240; do
  timeout 120 "$b/adex_pass_probe" "$n" float product >"$out/adex_pass_$n.log" 2>&1; echo "adex $n: exit $?"
done
cat "$out"/*.log | grep -E "us per launch|pass|pairs|group|differing|chunks|product" || true
