#!/usr/bin/env bash
# A/B of the IO run under mpirun (1 and 2 ranks on one GPU) between the tree in .oldtree/ (`git archive OLD | tar -x -C
# .oldtree`) and this one: both CUDA + MPI, kbrain only, built side by side; runs alternate old, new. Gaussian 1M x 1000,
# float. Needs .offline/ (scripts/offline_bundle.sh). Usage (on the GPU machine): OUT=folder scripts/lab/ab_io_mpi_gpu.sh
set -uo pipefail
here=$PWD; old=$here/.oldtree; root=/tmp/kbrain-sysroot
mkdir -p $root; for d in .offline/debs/*.deb; do dpkg -x $d $root; done
export LD_LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-} KBRAIN_NO_PROGRESS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
eval "$(scripts/mpi_sysroot.sh)"
ln -sfn $here/.offline $old/.offline
f=(-DKBRAIN_BUILD_TESTS=OFF -DKBRAIN_BUILD_BENCH=OFF)
t0=$(date +%s)
(cd $old && KBRAIN_JOBS=8 scripts/offline_build.sh cuda "${f[@]}" > $OUT/build_old.log 2>&1; echo "old build $? $(( $(date +%s)-t0 )) s") &
(KBRAIN_JOBS=8 scripts/offline_build.sh cuda "${f[@]}" > $OUT/build_new.log 2>&1; echo "new build $? $(( $(date +%s)-t0 )) s") &
wait
exp=$here/experiments/io_mpi_gaussian_4m.toml
for r in 1 2; do for n in 1 2; do for tree in old new; do
  kb=$here/build/cuda/experiments/program/kbrain; [ $tree = old ] && kb=$old/build/cuda/experiments/program/kbrain
  d=/tmp/abm-$tree-$n-$r; rm -rf $d
  if mpiexec --oversubscribe -n $n $kb run $exp -b cuda -p float --size 1048576 --steps 1000 -o $d > $d.log 2>&1; then
    echo "$tree ranks $n round $r simulate_s $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['simulate_s'])" $d/run.json)"
  else echo "$tree ranks $n round $r FAILED $(tail -2 $d.log)"; fi
done; done; done
for n in 1 2; do for f in /tmp/abm-old-$n-1/trace.* /tmp/abm-old-$n-1/spikes.*; do
  [ -e "$f" ] && cmp "$f" "/tmp/abm-new-$n-1/$(basename "$f")" && echo "ranks $n: old and new $(basename "$f") identical"
done; done
echo "end $(( $(date +%s)-t0 )) s"
