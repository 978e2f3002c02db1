#!/usr/bin/env bash
# Why the CUDA IO step takes the time it does: Nsight Compute on one launch of the 1M-cell mesh step (float and
# double: throughput, occupancy, issue, warp stalls, instruction counts), and the SASS instruction mix of the two
# kernels from cuobjdump. Needs a CUDA build (scripts/gpu_check.sh's build stage) and ncu/cuobjdump of the toolkit.
#   scripts/lab/profile_io_step.sh OUT        results: OUT/ncu_{float,double}.txt, OUT/mesh.sass, OUT/sass_mix.txt
# KBRAIN_PROFILE_KERNEL (regex of the kernel's demangled name, default IoStepFunctor) and KBRAIN_PROFILE_BENCH
# (kbrain_bench filter, PREC standing for the precision; default ^io_step/cuda/PREC/1024x1024/mesh) profile another
# kernel, e.g. the tiled Gaussian gap kernel: TiledCurrentsFunctor and ^io_step_generated/cuda/PREC/gaussian3d/4194304/1000/tiled$
# ncu runs the kernel at its locked base clock (1.44 GHz on an H200), so its durations exceed kbrain_bench's.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:?usage: scripts/lab/profile_io_step.sh OUT}"
mkdir -p "$out"
bench="${KBRAIN_BUILD:-$here/build/cuda}/bench/kbrain_bench"
cuda_bin="$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")"
"$here/scripts/describe_environment.sh" > "$out/environment.txt"
for p in double float; do
  filter="${KBRAIN_PROFILE_BENCH:-^io_step/cuda/PREC/1024x1024/mesh}"
  "$cuda_bin/ncu" --kernel-name-base demangled --kernel-name "regex:${KBRAIN_PROFILE_KERNEL:-IoStepFunctor}" \
    --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy \
    --section LaunchStats --section InstructionStats --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis_Tables \
    "$bench" --benchmark_min_time=0.01 --benchmark_filter="${filter//PREC/$p}" > "$out/ncu_$p.txt" 2>&1
  grep -E "SM Frequency|Duration|DRAM Throughput|Issue Slots Busy|Registers Per Thread|Theoretical Occupancy|Achieved Occupancy|Executed Instructions  |FP64|FP32|L1/TEX Hit|L2 Hit|Mem Pipes Busy|Bank Conflicts|Stall" "$out/ncu_$p.txt" | sed "s/^/$p: /"
done
"$cuda_bin/cuobjdump" -sass "$bench" 2>/dev/null |
  awk '/Function : /{p=($0 ~ /IoStepFunctorINS_4CudaE[df]NS4_16MeshGap/)} p' > "$out/mesh.sass"
python3 - "$out/mesh.sass" <<'PY' | tee "$out/sass_mix.txt"
import collections, re, sys
for f in re.split(r"Function : ", open(sys.argv[1]).read())[1:]:
    prec = "double" if "CudaEdNS4" in f.split("\n")[0] else "float"
    ops = collections.Counter(m.group(2).split(".")[0] for m in
                              re.finditer(r"/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)", f))
    print(prec, "static SASS instructions:", sum(ops.values()), "top:", ", ".join(f"{k} {v}" for k, v in ops.most_common(12)))
PY
