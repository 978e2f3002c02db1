# Sourced by the standalone CUDA probes (scripts/lab/ab_io_mesh_step.sh, scripts/lab/tune_mesh_pair.sh): builds a CUDA
# Kokkos from the bundled source once into $kk (KBRAIN_AB_KOKKOS, default /tmp/kbrain-ab-kokkos) and defines
# probe_compile SRC EXE LOG [nvcc args]: the probe compiled and linked against it with ptxas' register report.
here="${here:?set here to the repository root before sourcing probe_kokkos.sh}"
export PATH="/usr/local/cuda/bin:$PATH"
kk="${KBRAIN_AB_KOKKOS:-/tmp/kbrain-ab-kokkos}"
probe_kokkos() {  # log
  local src="$here/.offline/kokkos"
  [ -d "$src" ] || src="$here/.deps/kokkos"
  [ -x "$kk/bin/nvcc_wrapper" ] && return 0
  cmake -S "$src" -B "$kk-build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$src/bin/nvcc_wrapper" \
    -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON \
    -DKokkos_ARCH_HOPPER90=ON -DCMAKE_CXX_STANDARD=17 -DCMAKE_INSTALL_PREFIX="$kk" > "$1" 2>&1
  cmake --build "$kk-build" -j "$(nproc)" >> "$1" 2>&1
  cmake --install "$kk-build" >> "$1" 2>&1
}
probe_compile() {  # src exe log include-dir
  "$kk/bin/nvcc_wrapper" -O3 -DNDEBUG -expt-extended-lambda -arch=sm_90 -Xcompiler -fopenmp -std=c++17 \
    -isystem "$kk/include" -I"$4" "$1" -o "$2" -L"$kk/lib" -lkokkoscontainers -lkokkoscore -ldl -Xcompiler -fopenmp \
    -Xptxas=-v > "$3" 2>&1
}
